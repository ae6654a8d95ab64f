// Overlay traces across runs (issue #29 item 3): three runs of two simulated sweeps ticked on Results, overlaid on
// one time axis per metric with the phase shading and legend names that tell them apart. Screenshots at 1280x800
// and 1920x1080.
import { join } from 'node:path';
import { test, expect, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';
import type { MethodOutput } from '../../src/shared/api';

const shots = process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots';

test('overlay: three runs of two sweeps, ticked on Results, three traces per metric with the phases shaded', async ({ app }) => {
  const a = await startSweep(app, quickPlan('e2e overlay H100 A', [300, 500], 1, { cooldown_s: 2 }));
  expect(await waitEnded(app, a)).toBe('done');
  const b = await startSweep(app, quickPlan('e2e overlay H100 B', [300, 400], 1, { cooldown_s: 2 }));
  expect(await waitEnded(app, b)).toBe('done');
  const runsOf = async (id: number) => (await callApi<MethodOutput<'getSweep'>>(app, 'getSweep', { sweep_id: id })).runs;
  const [a300, a500] = await runsOf(a);
  const [, b400] = await runsOf(b);

  const origin = `${new URL(app.url()).origin}${new URL(app.url()).search}`;
  await app.goto(`${origin}#/results/${a}`);
  await expect(app.getByTestId('cap-table')).toBeVisible();
  await app.getByTestId(`overlay-pick-r${a300!.id}`).check();
  await app.getByTestId(`overlay-pick-r${a500!.id}`).check();
  await expect(app.getByTestId('overlay-count')).toHaveText('2 runs');
  // The picks stay while another sweep is shown.
  await app.getByTestId('results-sweep').selectOption(String(b));
  await expect(app.locator('#results-title')).toContainText(`sweep #${b}`);
  await app.getByTestId(`overlay-pick-r${b400!.id}`).check();
  await expect(app.getByTestId('overlay-count')).toHaveText('3 runs');
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await app.setViewportSize({ width: w, height: h });
    await app.getByTestId('overlay-bar').scrollIntoViewIfNeeded();
    await app.screenshot({ path: `${shots}/overlay-pick-${w}x${h}.png` });
  }
  await app.setViewportSize({ width: 1400, height: 900 });
  await app.getByTestId('overlay-open').click();

  await expect.poll(() => decodeURIComponent(new URL(app.url()).hash)).toBe(`#/overlay/r${a300!.id},r${a500!.id},r${b400!.id}`);
  const rows = app.getByTestId('overlay-source');
  await expect(rows).toHaveCount(3);
  const names = [`#${a} e2e overlay H100 A · vit_l_16 · 300 W · r1`, `#${a} e2e overlay H100 A · vit_l_16 · 500 W · r1`, `#${b} e2e overlay H100 B · vit_l_16 · 400 W · r1`];
  for (const [i, n] of names.entries()) await expect(rows.nth(i)).toContainText(n);
  // Every run recorded every metric: nothing is said missing.
  await expect(app.getByTestId('overlay-not-recorded')).toHaveText(['–', '–', '–']);

  for (const m of ['power_w', 'sm_clock_mhz', 'temp_c', 'throughput']) {
    const plot = app.getByTestId(`overlay-plot-${m}`);
    await expect(plot.locator('.scatterlayer .trace')).toHaveCount(3);
    // Warm-up, measure and cool-down of the runs (equal phases are shaded once): at least the three phases.
    expect(await plot.locator('.layer-below .shapelayer path').count()).toBeGreaterThanOrEqual(3);
    await expect(app.getByTestId(`overlay-missing-${m}`)).toHaveCount(0);
  }
  // The power plot's legend names the three runs, each whole.
  const legend = app.getByTestId('overlay-plot-power_w').locator('.legend .legendtext');
  await expect(legend).toHaveText(names);

  // The page's series are the engine's: the first run's warm-up starts before 0 and its window ends where its record says.
  const api = await callApi<MethodOutput<'overlayTraces'>>(app, 'overlayTraces', { sources: [{ kind: 'run', run_id: a300!.id }] });
  const phases = api.sources[0]!.phases;
  expect(phases.map((p) => p.phase)).toEqual(['warmup', 'measure', 'cooldown']);
  expect(phases[1]!.to).toBeCloseTo(a300!.measure_end! - a300!.measure_start!, 6);
  expect(phases[0]!.from).toBeLessThan(0);

  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await app.setViewportSize({ width: w, height: h });
    await app.goto(`${origin}#/overlay/r${a300!.id},r${a500!.id},r${b400!.id}`);
    await app.reload();
    await expect(app.getByTestId('overlay-plot-throughput').locator('.scatterlayer .trace')).toHaveCount(3);
    await app.screenshot({ path: `${shots}/overlay-${w}x${h}.png` });
  }
});

test('overlay: a dataset segment ticked on its dataset, with what its log did not record said instead of drawn', async ({ app }) => {
  const r = await callApi<MethodOutput<'importDataset'>>(app, 'importDataset', { import_id: 'e2e-overlay-seg', paths: [join(process.cwd(), 'test/fixtures/import/nvidia-smi-seed.csv')], tz: 'UTC', name: 'two H100s, nvidia-smi' });
  const ds = r.dataset!;
  const saved = await callApi<MethodOutput<'saveSegment'>>(app, 'saveSegment', { dataset_id: ds.id, start: ds.t_start!, end: ds.t_end!, label: 'whole log', workload: 'llm', cap_w: 700 });
  const seg = saved.segments.at(-1)!;

  await app.goto(`${new URL(app.url()).origin}${new URL(app.url()).search}#/datasets/${ds.id}`);
  await app.getByTestId(`overlay-pick-s${seg.id}`).check();
  await expect(app.getByTestId('overlay-count')).toHaveText('1 segment');
  await app.getByTestId('overlay-open').click();

  const row = app.getByTestId('overlay-source');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`dataset #${ds.id} two H100s, nvidia-smi · segment ${seg.id} whole log · llm · 700 W`);
  // Its two GPUs are two lines; the log has no work units, so throughput is said to be missing and not drawn.
  await expect(app.getByTestId('overlay-plot-power_w').locator('.scatterlayer .trace')).toHaveCount(2);
  await expect(app.getByTestId('overlay-not-recorded')).toHaveText(new RegExp(`dataset ${ds.id} has no work-unit records in segment ${seg.id}'s window`));
  await expect(app.getByTestId('overlay-missing-throughput')).toContainText('Not recorded, not drawn');
  await expect(app.getByTestId('overlay-none-throughput')).toHaveText('No source recorded throughput.');
  await expect(app.getByTestId('overlay-plot-throughput')).toHaveCount(0);
});
