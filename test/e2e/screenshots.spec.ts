// Screenshots of every page for docs/ (README). Runs only when asked: CAPLAB_SCREENSHOTS=1 npx playwright test screenshots
import { mkdirSync } from 'node:fs';
import { test, expect, go } from './fixtures';

const out = process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots';

test.skip(!process.env.CAPLAB_SCREENSHOTS, 'set CAPLAB_SCREENSHOTS=1 to refresh docs/screenshots');

test('screenshots of every page', async ({ app }, info) => {
  test.skip(info.project.name !== 'chromium', 'screenshots come from the chromium project');
  test.setTimeout(240_000);
  mkdirSync(out, { recursive: true });
  await app.setViewportSize({ width: 1440, height: 960 });
  const shot = (name: string) => app.screenshot({ path: `${out}/${name}.png` });
  // Pages scroll inside <main>, so a full-page screenshot needs a viewport as tall as the page.
  const fullHeight = async () => {
    const height = await app.locator('main').evaluate((el) => el.scrollHeight);
    await app.setViewportSize({ width: 1440, height: Math.min(4000, Math.max(960, height + 8)) });
    await app.waitForTimeout(1500);
  };

  // A finished sweep for the results and history pages.
  await go(app, 'designer');
  await app.getByTestId('template-select').selectOption('demo');
  await app.getByTestId('plan-name').fill('ViT-L/16 on simulated H100, 200-700 W');
  await app.getByTestId('plan-backend').selectOption('sim');
  await app.getByTestId('repetitions').fill('3');
  await app.getByTestId('sim-speedup').fill('60');
  await expect(app.getByTestId('validation-ok')).toBeVisible();
  await app.getByTestId('start-sweep').click();
  await expect(app.getByTestId('sweep-status')).toContainText('done', { timeout: 200_000 });
  // The console of the finished sweep after a reload: replayed from the database, 100 %.
  await app.reload();
  await go(app, 'console');
  await expect(app.getByTestId('runs-done')).toHaveText(/^(\d+) of \1 runs done$/);
  await expect.poll(async () => Number(await app.getByTestId('live-traces').getAttribute('data-points')), { timeout: 30_000 }).toBeGreaterThan(100);
  await app.waitForTimeout(1500);
  await fullHeight();
  await shot('console-finished');
  await app.setViewportSize({ width: 1440, height: 960 });

  // Problems at their fields, in words.
  await go(app, 'designer');
  await app.getByTestId('template-select').selectOption('demo');
  await app.getByTestId('plan-backend').selectOption('sim');
  await app.getByTestId('caps-mode-grid').click();
  await app.getByTestId('caps-to').fill('800');
  await app.getByTestId('repetitions').fill('0');
  await expect(app.getByTestId('repetitions-error')).toBeVisible();
  await expect(app.getByTestId('caps-error')).toBeVisible();
  await app.waitForTimeout(6000); // let the template toast fade
  await shot('designer-errors');

  // The user guide, opened from a page at its section.
  await go(app, 'results');
  await expect(app.getByTestId('best-cap')).toHaveText(/\d+ W/);
  await app.getByTestId('guide-link').click();
  await expect(app.getByTestId('guide')).toBeVisible();
  await app.waitForTimeout(500);
  await shot('guide');
  await app.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

  // A second, slower sweep to show live data on the devices page and in the console.
  await go(app, 'designer');
  await app.getByTestId('template-select').selectOption('vit-h100');
  await app.getByTestId('plan-backend').selectOption('sim');
  await app.getByTestId('sim-speedup').fill('10');
  await app.getByTestId('plan-name').fill('ViT-L/16 on H100 (seed paper grid)');
  await expect(app.getByTestId('validation')).toHaveAttribute('data-validating', 'false');
  await expect(app.getByTestId('validation-ok')).toBeVisible();
  await app.getByTestId('plan-name').blur();
  await app.waitForTimeout(6000); // let the template toast fade
  await shot('designer');
  await app.getByTestId('start-sweep').click();
  await expect(app.getByTestId('current-run')).toContainText('measure', { timeout: 60_000 });
  await app.waitForTimeout(4000);
  // The whole console, with the terminal focused for input (it takes keystrokes while a run is active).
  await app.getByTestId('terminal').click();
  await fullHeight();
  await shot('console');
  await app.setViewportSize({ width: 1440, height: 960 });
  await go(app, 'devices');
  // Gauges during a measured run (not in a cool-down between runs).
  await expect.poll(async () => Number(await app.getByTestId('r-power').first().getAttribute('data-value')), { timeout: 60_000 }).toBeGreaterThan(200);
  await app.waitForTimeout(1000);
  await shot('devices');
  await go(app, 'console');
  await app.getByTestId('cancel-sweep').click();
  await app.getByRole('dialog').getByRole('button', { name: 'Cancel sweep' }).click();
  await expect(app.getByTestId('finished-banner')).toBeVisible({ timeout: 30_000 });

  await go(app, 'history');
  await expect(app.getByTestId('history-row').first()).toBeVisible();
  await app.waitForTimeout(6000); // let the sweep-end toast fade
  await shot('history');
  await app.getByTestId('history-row').nth(1).getByRole('button').first().click();
  await expect(app.getByTestId('best-cap')).toHaveText(/\d+ W/);
  await expect(app.getByTestId('analysis-state')).toHaveAttribute('data-pending', 'false');
  await fullHeight();
  await shot('results');
  await app.getByTestId('theme-toggle').click();
  await app.waitForTimeout(800);
  await shot('results-light');
  await app.getByTestId('theme-toggle').click();
  await app.setViewportSize({ width: 1440, height: 960 });
});
