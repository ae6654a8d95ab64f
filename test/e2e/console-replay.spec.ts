import { test, expect, go } from './fixtures';
import { quickPlan, startSweep, waitEnded, watchProblems } from './helpers';

test('the console of a finished sweep replays its traces, phases and "12 of 12" after a reload', async ({ app }) => {
  const problems = watchProblems(app);
  const id = await startSweep(app, quickPlan('e2e replay', [200, 300, 400, 500, 600, 700], 2));
  await go(app, 'console');
  // Record every value the progress bar takes while the sweep runs.
  await app.evaluate(`(() => {
    window.progressSeen = [];
    const read = () => {
      const bar = document.querySelector('[data-testid=progress] [role=progressbar]');
      const v = bar ? Number(bar.getAttribute('aria-valuenow')) : NaN;
      if (!Number.isNaN(v) && window.progressSeen.at(-1) !== v) window.progressSeen.push(v);
    };
    new MutationObserver(read).observe(document.body, { subtree: true, attributes: true, childList: true });
    read();
  })()`);
  expect(await waitEnded(app, id)).toBe('done');
  await expect(app.getByTestId('runs-done')).toHaveText('12 of 12 runs done');
  const seen = await app.evaluate<number[]>('window.progressSeen');
  expect(seen.length).toBeGreaterThan(5);
  for (let i = 1; i < seen.length; i++) expect(seen[i]!, `progress went ${seen.join(' → ')}`).toBeGreaterThanOrEqual(seen[i - 1]!);
  expect(seen.at(-1)).toBe(100);

  await app.reload();
  await go(app, 'console');
  await expect(app.getByRole('heading', { name: new RegExp(`sweep #${id}`) })).toBeVisible();
  await expect(app.getByTestId('sweep-status')).toContainText('done');
  await expect(app.getByTestId('runs-done')).toHaveText('12 of 12 runs done');
  await expect(app.getByRole('progressbar', { name: 'sweep progress' })).toHaveAttribute('aria-valuenow', '100');
  await expect(app.getByTestId('finished-banner')).toContainText('done');
  const traces = app.getByTestId('live-traces');
  // Power, clock, temperature and throughput of all 12 runs, with the phases shaded behind them.
  await expect.poll(async () => Number(await traces.getAttribute('data-points')), { timeout: 30_000 }).toBeGreaterThan(500);
  // One device: power, its cap, clock, temperature, and throughput; 12 runs' phases shaded.
  await expect(traces).toHaveAttribute('data-traces', '5');
  expect(Number(await traces.getAttribute('data-phases'))).toBeGreaterThanOrEqual(12);
  await expect(traces).toContainText('simulated time');
  await expect(app.getByTestId('console-runs').locator('tbody tr')).toHaveCount(12);
  expect(problems).toEqual([]);
});

test('a cancelled sweep says it was cancelled and how far it got, not 100 %', async ({ app }) => {
  const id = await startSweep(app, quickPlan('e2e cancel progress', [250, 350, 450, 550], 3, { window: { seconds: 40 } }));
  await go(app, 'console');
  await expect(app.getByTestId('current-run')).toContainText('measure', { timeout: 60_000 });
  await app.getByTestId('cancel-sweep').click();
  await app.getByRole('dialog').getByRole('button', { name: 'Cancel sweep' }).click();
  expect(await waitEnded(app, id)).toBe('cancelled');
  await expect(app.getByTestId('runs-done')).toHaveText(/^cancelled after \d+ of 12 runs$/);
  const pct = Number(await app.getByRole('progressbar', { name: 'sweep progress' }).getAttribute('aria-valuenow'));
  expect(pct).toBeLessThan(100);
});
