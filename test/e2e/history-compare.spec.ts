// Issue #29 item 2: "compare any two or more from here". Three sweeps ticked on History open on Results compared:
// every series named in full in the legends, each in its own colour, the cancelled one marked; the comparison
// table has a column each. Screenshots at 1280x800 and 1920x1080.
import { test, expect, go, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';
import type { Page } from '@playwright/test';

const shots = process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots';
const sizes = [
  [1280, 800],
  [1920, 1080],
] as const;

type El = { textContent: string | null; querySelectorAll(s: string): ArrayLike<El>; getBoundingClientRect(): { right: number }; closest(s: string): El | null };

/** A chart's legend entries as read (the lines of a wrapped one joined) and whether each ends inside the chart. */
async function legendEntries(app: Page, plot: string): Promise<{ text: string; inside: boolean }[]> {
  await expect(app.getByTestId(plot).locator('.legend .legendtext').first()).toBeVisible();
  return app
    .getByTestId(plot)
    .locator('.legend .legendtext')
    .evaluateAll((els) =>
      (els as unknown as El[]).map((el) => {
        const lines = Array.from(el.querySelectorAll('tspan.line'), (t) => t.textContent ?? '');
        const svg = el.closest('svg.main-svg')!;
        return { text: lines.length ? lines.join(' ') : (el.textContent ?? ''), inside: el.getBoundingClientRect().right <= svg.getBoundingClientRect().right };
      }),
    );
}

test('three sweeps ticked on History open on Results compared, told apart by full names, colours and a cancelled mark', async ({ app }) => {
  // Names alike up to their last word: a legend that cuts names cannot tell them apart.
  const base = 'e2e three-way comparison of ViT-L/16 caps';
  const a = await startSweep(app, quickPlan(`${base} alpha`, [300, 500], 2, { cooldown_s: 0 }));
  expect(await waitEnded(app, a)).toBe('done');
  const b = await startSweep(app, quickPlan(`${base} bravo`, [300, 500], 2, { cooldown_s: 0, sim: { speedup: 20, devices: ['h200'] } }));
  expect(await waitEnded(app, b)).toBe('done');
  // Cancelled once two of its four runs finished: comparable, and marked as such.
  const c = await startSweep(app, quickPlan(`${base} charlie`, [300, 400, 500, 600], 1, { cooldown_s: 0, window: { seconds: 60 } }));
  await expect.poll(async () => (await callApi<{ sweep: { runs_done: number } }>(app, 'getSweep', { sweep_id: c })).sweep.runs_done, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  await callApi(app, 'cancelSweep', { sweep_id: c });
  expect(await waitEnded(app, c)).toBe('cancelled');

  await go(app, 'history');
  await app.getByTestId('history-search').fill(base);
  await expect(app.getByTestId('history-row')).toHaveCount(3);
  await app.getByTestId(`pick-${a}`).check();
  await expect(app.getByTestId('history-compare')).toBeDisabled();
  await app.getByTestId(`pick-${b}`).check();
  await app.getByTestId(`pick-${c}`).check();
  await expect(app.getByTestId('history-compare')).toHaveText(`Compare #${a} with #${b}, #${c}`);
  await expect(app.getByTestId('history-compare')).toBeEnabled();
  for (const [w, h] of sizes) {
    await app.setViewportSize({ width: w, height: h });
    await app.screenshot({ path: `${shots}/history-compare-three-${w}x${h}.png` });
  }

  await app.getByTestId('history-compare').click();
  await expect(app).toHaveURL(new RegExp(`#/results/${a}$`));
  await expect(app.getByTestId('results-compare')).toHaveValue(String(b), { timeout: 20_000 });
  const chips = app.getByTestId('compare-chip');
  await expect(chips).toHaveCount(2);
  await expect(chips.nth(0)).toContainText(`#${b} ${base} bravo`);
  await expect(chips.nth(1)).toContainText(`#${c} ${base} charlie`);
  await expect(chips.nth(1)).toContainText('cancelled');
  await expect(chips.nth(0)).not.toContainText('cancelled');

  const labels = [`#${a} · ${base} alpha · NVIDIA H100 80GB HBM3 (sim)`, `#${b} · ${base} bravo · NVIDIA H200 (sim)`, `#${c} · ${base} charlie · NVIDIA H100 80GB HBM3 (sim) · cancelled`];
  const heads = app.getByTestId('comparison').getByTestId('comparison-head');
  await expect(heads).toHaveCount(3, { timeout: 20_000 });
  const model = (await heads.nth(1).textContent())!.trim();
  expect(model).toContain(`#${b} · ${base} bravo`);
  labels[1] = model;
  for (const [i, l] of labels.entries()) await expect(heads.nth(i)).toHaveText(l);
  for (const plot of ['efficiency-plot', 'throughput-plot']) {
    expect(await legendEntries(app, plot)).toEqual(labels.map((l) => ({ text: l, inside: true })));
    // One stroke colour per sweep, none the warning orange or the best-cap yellow.
    const strokes = await app.getByTestId(plot).locator('.scatterlayer .trace .js-line').evaluateAll((els) => els.map((e) => (e as unknown as { style: { stroke: string } }).style.stroke));
    expect(new Set(strokes).size).toBe(3);
    for (const s of strokes) expect(['rgb(242, 142, 43)', 'rgb(237, 201, 72)']).not.toContain(s);
  }
  expect(await legendEntries(app, 'pareto-plot')).toEqual(labels.map((l) => ({ text: `${l} Pareto front`, inside: true })));

  // The "and also" picker offers only what is not compared yet and adds; a chip's × removes.
  await expect(app.getByTestId('results-compare-add').locator(`option[value="${b}"]`)).toHaveCount(0);
  await app.getByTestId('compare-chip').nth(1).getByTestId('compare-remove').click();
  await expect(chips).toHaveCount(1);
  await expect(heads).toHaveCount(2);
  await app.getByTestId('results-compare-add').selectOption(String(c));
  await expect(chips).toHaveCount(2);
  await expect(heads).toHaveCount(3);

  for (const [w, h] of sizes) {
    await app.setViewportSize({ width: w, height: h });
    await app.getByTestId('compare-chips').scrollIntoViewIfNeeded();
    await app.screenshot({ path: `${shots}/results-compare-three-${w}x${h}.png` });
    await app.getByTestId('efficiency-plot').scrollIntoViewIfNeeded();
    await app.screenshot({ path: `${shots}/results-compare-three-plots-${w}x${h}.png` });
  }
});
