import { test, expect, go, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';

test('results: the drill-down scrolls into view with readable names; compare names its series in distinct colours', async ({ app }) => {
  const a = await startSweep(app, quickPlan('e2e clarity H100', [300, 500], 2, { cooldown_s: 0 }));
  expect(await waitEnded(app, a)).toBe('done');
  const b = await startSweep(app, quickPlan('e2e clarity H200', [300, 500], 2, { cooldown_s: 0, sim: { speedup: 20, devices: ['h200'] } }));
  expect(await waitEnded(app, b)).toBe('done');

  await app.setViewportSize({ width: 1280, height: 800 });
  await app.goto(`${new URL(app.url()).origin}${new URL(app.url()).search}#/results/${a}`);
  await expect(app.getByTestId('best-cap')).toHaveText(/\d+ W/);
  const row = app.getByTestId('cap-table').locator('tbody tr').first();
  // "300 W" stays on one line, even at 1024 px (it wrapped to "300 / W" at 1280 px with long flags): its text (two text nodes) lies on one line.
  await app.setViewportSize({ width: 1024, height: 800 });
  const capCell = row.locator('td').first();
  await expect(capCell).toHaveText('300 W');
  type Doc = { createRange(): { selectNodeContents(n: unknown): void; getClientRects(): ArrayLike<{ top: number }> } };
  const lines = await capCell.evaluate((el) => {
    const r = (globalThis as unknown as { document: Doc }).document.createRange();
    r.selectNodeContents(el);
    return new Set(Array.from(r.getClientRects(), (x) => Math.round(x.top))).size;
  });
  expect(lines).toBe(1);
  await app.setViewportSize({ width: 1280, height: 800 });
  await row.getByRole('button', { name: 'r1' }).click();
  const drill = app.getByTestId('run-drilldown');
  await expect(drill).toBeInViewport();
  await expect(drill.locator('h3')).toContainText(/^r1: vit_l_16 at 300 W, repetition 1/);
  await expect(drill.locator('.legend')).toContainText('GPU 0');
  await expect(drill.locator('.legend')).not.toContainText('/sim:0/');

  // A sweep cancelled before any run finished is listed with its status and cannot be picked.
  const c = await startSweep(app, quickPlan('e2e clarity cancelled', [300, 500], 2));
  await callApi(app, 'cancelSweep', { sweep_id: c });
  expect(await waitEnded(app, c)).toBe('cancelled');
  await app.reload();
  const cancelled = app.getByTestId('results-compare').locator(`option[value="${c}"]`);
  await expect(cancelled).toHaveText(`#${c} e2e clarity cancelled · cancelled, 0/4 runs`);
  await expect(cancelled).toBeDisabled();
  await app.getByTestId('results-compare').selectOption(String(b));
  const eff = app.getByTestId('efficiency-plot');
  await expect(eff.locator('.legend')).toContainText(`#${a} · e2e clarity H100`);
  await expect(eff.locator('.legend')).toContainText(`#${b} · e2e clarity H200`);
  // The compared curve is not drawn in the warning orange (#f28e2b) nor the best-cap yellow (#edc948).
  const strokes = await eff.locator('.scatterlayer .trace .js-line').evaluateAll((els) => els.map((e) => (e as unknown as { style: { stroke: string } }).style.stroke));
  expect(strokes.length).toBeGreaterThanOrEqual(2);
  for (const s of strokes) expect(['rgb(242, 142, 43)', 'rgb(237, 201, 72)']).not.toContain(s);
  expect(new Set(strokes).size).toBeGreaterThanOrEqual(2);
});

test('at 1280x800 the console\'s finished-runs table shows every column, and a cancelled run shows a bare dash', async ({ app }) => {
  await app.setViewportSize({ width: 1280, height: 800 });
  const id = await startSweep(app, quickPlan('e2e narrow', [300, 400, 500], 1, { window: { seconds: 60 } }));
  await go(app, 'console');
  await expect(app.getByTestId('current-run')).toContainText('measure', { timeout: 60_000 });
  await app.getByTestId('cancel-sweep').click();
  await app.getByRole('dialog').getByRole('button', { name: 'Cancel sweep' }).click();
  expect(await waitEnded(app, id)).toBe('cancelled');
  const table = app.getByTestId('console-runs');
  const card = table.locator('xpath=ancestor::div[contains(@class,"card")][1]');
  const cardBox = (await card.boundingBox())!;
  const effBox = (await table.getByRole('columnheader', { name: 'Efficiency' }).boundingBox())!;
  expect(effBox.x + effBox.width).toBeLessThanOrEqual(cardBox.x + cardBox.width);
  const cancelled = table.locator('tbody tr', { hasText: 'cancelled' }).first();
  await expect(cancelled.locator('td').nth(5)).toHaveText('–');
  await expect(cancelled.locator('td').nth(7)).toHaveText('–');
});
