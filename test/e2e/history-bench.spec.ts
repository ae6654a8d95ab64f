// Issue #29 item 2: History with best cap, GPU model, duration, editable tags and notes (stored), filters, search over
// tags/notes and compare two or more from here (three: history-compare.spec.ts). Screenshots at 1280x800 and 1920x1080.
import { test, expect, go, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';

const shots = 'docs/screenshots';

test('history rows show GPU and duration; tags and notes are edited, kept and searched; two ticked sweeps open compared', async ({ app }) => {
  const a = await startSweep(app, quickPlan('bench hist a', [300]));
  expect(await waitEnded(app, a)).toBe('done');
  const b = await startSweep(app, quickPlan('bench hist b', [300, 500], 1, { warmup: { seconds: 25 } }));
  expect(await waitEnded(app, b)).toBe('done');

  await go(app, 'history');
  await app.getByTestId('history-search').fill('bench hist');
  await expect(app.getByTestId('history-row')).toHaveCount(2);
  const rowA = app.locator(`[data-testid="history-row"][data-sweep-id="${a}"]`);
  await expect(rowA.getByTestId('history-gpus')).toHaveText('NVIDIA H100 80GB HBM3 (simulated)');
  await expect(rowA.getByTestId('history-duration')).toHaveText(/^\d+(\.\d+)? ?s$|^\d+ ?min/);
  // Best cap as Results and `caplab analyze` give it; one cap alone is no answer, and the cell says why on hover.
  const bBest = (await callApi<{ groups: { best: { cap_w: number | null } }[] }>(app, 'analyzeSweep', { sweep_id: b })).groups[0]!.best.cap_w;
  expect(bBest).not.toBeNull();
  const rowB = app.locator(`[data-testid="history-row"][data-sweep-id="${b}"]`);
  await expect(rowB.getByTestId('history-best')).toHaveText(`${bBest} W`);
  await expect(rowA.getByTestId('history-best')).toHaveText('no answer');
  await expect(rowA.getByTestId('history-best').locator('div')).toHaveAttribute('title', /cap/);

  // Edit tags and notes; they are stored (a fresh read of the sweep has them) and searchable.
  await app.getByTestId(`edit-notes-${a}`).click();
  await app.getByTestId('tags-input').fill('baseline, h100, baseline');
  await app.getByTestId('notes-input').fill('first try after the driver update');
  await app.getByTestId('notes-save').click();
  await expect(rowA.getByTestId('history-tags')).toHaveText('baselineh100');
  await expect(rowA.getByTestId('history-notes')).toContainText('first try after the driver update');
  const stored = await callApi<{ sweep: { tags: string[]; notes: string } }>(app, 'getSweep', { sweep_id: a });
  expect(stored.sweep).toMatchObject({ tags: ['baseline', 'h100'], notes: 'first try after the driver update' });
  await app.getByTestId('history-search').fill('driver update');
  await expect(app.getByTestId('history-row')).toHaveCount(1);
  await app.getByTestId('history-search').fill('bench hist');
  await expect(app.getByTestId('history-row')).toHaveCount(2);

  // Filters: both are simulated and done.
  await app.getByTestId('history-kind').selectOption('real');
  await expect(app.getByTestId('history-row')).toHaveCount(0);
  await expect(app.getByTestId('history-table')).toContainText('No sweep matches.');
  await app.getByTestId('history-kind').selectOption('simulated');
  await app.getByTestId('history-status').selectOption('done');
  await expect(app.getByTestId('history-row')).toHaveCount(2);

  await app.getByTestId(`pick-${a}`).check();
  await expect(app.getByTestId('history-compare')).toBeDisabled();
  await app.getByTestId(`pick-${b}`).check();
  await expect(app.getByTestId('history-compare')).toHaveText(`Compare #${a} with #${b}`);
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await app.setViewportSize({ width: w, height: h });
    await app.screenshot({ path: `${shots}/history-bench-${w}x${h}.png` });
  }
  await app.getByTestId('history-compare').click();
  await expect(app).toHaveURL(new RegExp(`#/results/${a}$`));
  await expect(app.getByTestId('results-compare')).toHaveValue(String(b), { timeout: 20_000 });
});

test('setSweepNotes refuses an unknown sweep (404) and an over-long tag (400)', async ({ app }) => {
  await expect(callApi(app, 'setSweepNotes', { sweep_id: 99999, notes: 'x' })).rejects.toThrow(/HTTP 404.*no sweep 99999/);
  await expect(callApi(app, 'setSweepNotes', { sweep_id: 1, tags: ['x'.repeat(41)] })).rejects.toThrow(/HTTP 400/);
});
