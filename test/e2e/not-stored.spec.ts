// Issue #29 (fixes): a URL naming a sweep or dataset that is not stored says so and offers the list, instead of
// "Loading…" forever with two toasts (datasets) or silently showing another sweep (results, console).
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';

const shots = 'docs/screenshots';

// In-app navigation (a hash change, not a reload), as a user editing the address bar of the running page.
const setHash = (app: Page, h: string): Promise<string> =>
  app.evaluate((x) => ((globalThis as unknown as { location: { hash: string } }).location.hash = x), h);

test('#/results/999, #/console/999 and #/datasets/999 say "No sweep/dataset 999" and lead to the list; a stored id still opens', async ({ app }) => {
  const a = await startSweep(app, quickPlan('not stored check', [300]));
  expect(await waitEnded(app, a)).toBe('done');

  for (const [page, what] of [
    ['results', 'sweep'],
    ['console', 'sweep'],
    ['datasets', 'dataset'],
  ] as const) {
    await setHash(app, `#/${page}/999999`);
    const box = app.getByTestId('not-stored');
    await expect(box).toContainText(`No ${what} 999999`);
    await expect(app.locator('.toast.error')).toHaveCount(0);
    if (page === 'results') await expect(app.getByTestId('results-sweep')).toHaveCount(0);
    if (page === 'datasets') await expect(app.getByText('Loading dataset')).toHaveCount(0);
  }
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await app.setViewportSize({ width: w, height: h });
    await app.screenshot({ path: `${shots}/not-stored-${w}x${h}.png` });
  }

  await setHash(app, '#/results/abc');
  await expect(app.getByTestId('not-stored')).toContainText('No sweep abc');

  // The button leads to the list; a stored id opens that sweep, not another one.
  await app.getByTestId('not-stored-list').click();
  await expect(app.getByTestId('nav-history')).toHaveAttribute('aria-current', 'page');
  await setHash(app, `#/results/${a}`);
  await expect(app.getByRole('heading', { name: new RegExp(`Results · sweep #${a}\\b`) })).toBeVisible();
  await expect(app.getByTestId('not-stored')).toHaveCount(0);
  await setHash(app, `#/console/${a}`);
  await expect(app.getByTestId('not-stored')).toHaveCount(0);
  await expect(app.getByText('Sweep done.')).toBeVisible();
});
