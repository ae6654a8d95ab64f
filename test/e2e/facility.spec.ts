// The Facility page runs a shipped config through the engine (worker threads behind the browser host) and plots it.
// CAPLAB_SCREENSHOTS=1 also refreshes docs/screenshots/facility.png.
import { readFileSync } from 'node:fs';
import { test, expect, go } from './fixtures';

test('facility page: runs the NLR colocation reconstruction with replicas and plots series, band, LDC and scenarios', async ({ app }, info) => {
  test.setTimeout(300_000);
  await app.setViewportSize({ width: 1440, height: 960 });
  await go(app, 'facility');
  await app.getByTestId('facility-config').selectOption('nlr-colocation');
  await expect(app.getByTestId('facility-yaml')).toHaveValue(/mode: training/);
  await app.getByTestId('facility-replicas').fill('3');
  await app.getByTestId('facility-horizon').fill('42');
  // Every progress line the page shows while it runs (users see progress on anything over a second).
  await app.evaluate(`(() => {
    const seen = (window.facilityProgress = []);
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid="facility-progress"]')?.textContent;
      if (t && seen[seen.length - 1] !== t) seen.push(t);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
  await app.getByTestId('facility-run').click();
  await expect(app.getByTestId('facility-done')).toBeVisible({ timeout: 280_000 });
  const progress = await app.evaluate<string[]>('window.facilityProgress');
  expect(progress.length, progress.join(' | ')).toBeGreaterThan(1);
  const summary = app.getByTestId('facility-summary');
  // 3 scenarios x 4 targets.
  await expect(summary.locator('tbody tr')).toHaveCount(12);
  await expect(summary.locator('tbody tr').first()).toContainText('baseline');
  await expect(summary.locator('tbody tr').first()).toContainText(/20\.\d % ± \d/);
  for (const id of ['facility-series', 'facility-ldc', 'facility-compare']) await expect(app.getByTestId(id).locator('.main-svg').first()).toBeVisible();
  // The band is drawn (fill between replica min and max).
  await expect(app.getByTestId('facility-series').locator('.scatterlayer .trace')).toHaveCount(3);
  await app.getByRole('tablist', { name: 'Target utilisation' }).getByRole('button', { name: '80 %' }).click();
  // The report of what is shown: the same run again (same seed), rendered as the facility report.
  const firstRow = (await summary.locator('tbody tr').first().locator('td').allTextContents()).map((t) => t.trim());
  const download = app.waitForEvent('download', { timeout: 280_000 });
  await app.getByTestId('facility-report-html').click();
  const file = info.outputPath('facility.html');
  await (await download).saveAs(file);
  const html = readFileSync(file, 'utf8');
  expect(html).toContain('CapLab facility report');
  expect(html).toContain('NLR colocation (reconstruction)');
  expect(html.match(/<svg[^>]*data-chart="facility-ldc"/g)).toHaveLength(3);
  // The page's baseline 20 % mean (MW, 3 decimals) is the report's (4 significant digits).
  const mean = firstRow[3]!.split(' ')[0]!;
  expect(html).toMatch(new RegExp(`<td>${mean.replace('.', '\\.')}\\d? ± `));
  await expect(app.getByTestId('facility-report-html')).toBeEnabled();
  if (process.env.CAPLAB_SCREENSHOTS && info.project.name === 'chromium') {
    const height = await app.locator('main').evaluate((el) => el.scrollHeight);
    await app.setViewportSize({ width: 1440, height: Math.min(4000, Math.max(960, height + 8)) });
    await app.waitForTimeout(1500);
    await app.screenshot({ path: `${process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots'}/facility.png` });
  }
});

test('facility page: bad input shows the error naming the field', async ({ app }) => {
  await go(app, 'facility');
  await expect(app.getByTestId('facility-yaml')).toHaveValue(/mode:/);
  const yaml = await app.getByTestId('facility-yaml').inputValue();
  await app.getByTestId('facility-yaml').fill(yaml.replace(/^targets: .*$/m, 'targets: [0.2, 1.5]'));
  await app.getByTestId('facility-run').click();
  await expect(app.getByTestId('facility-error')).toContainText('facility config: targets[1]: utilisation is a fraction of nodes busy: at most 1 (100 %)');
});
