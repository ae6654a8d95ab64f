// The Datasets page: import by drop (file input), the trace re-queried on zoom, a brushed segment, History's list.
// With CAPLAB_SCREENSHOTS=1 it also imports a 10-million-sample nvidia-smi log and takes docs/screenshots.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import { test, expect, go, callApi } from './fixtures';

/** Drags horizontally across the trace's plot area between two fractions of its width (zoom or brush). */
async function dragX(app: Page, a: number, b: number): Promise<void> {
  const box = (await app.getByTestId('dataset-trace').locator('.nsewdrag').first().boundingBox())!;
  await app.mouse.move(box.x + box.width * a, box.y + box.height * 0.5);
  await app.mouse.down();
  await app.mouse.move(box.x + box.width * b, box.y + box.height * 0.52, { steps: 10 });
  await app.mouse.up();
}
import { nvidiaSmiLog } from '../../bench/gen-power-logs';

test('import a log by drop, zoom the trace, brush a segment, see it in History', async ({ app }) => {
  await go(app, 'datasets');
  await app.getByTestId('import-input').setInputFiles('test/fixtures/import/hpcai-tree/vit_l16/300Watts/gpu_power.csv');
  // The preview comes first; nothing is written until Import.
  await app.getByTestId('import-go').click();
  await expect(app.getByTestId('dataset-facts')).toContainText('nvidia-smi · 60 samples · 1 device ·');
  // A minute-long log to the second, with its length (naive timestamps, read and shown in this machine's zone).
  await expect(app.getByTestId('dataset-facts')).toContainText('2026-11-30 09:00:00 – 09:00:59 (59s)');
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await app.setViewportSize({ width: w, height: h });
    await app.screenshot({ path: `docs/screenshots/dataset-header-${w}x${h}.png` });
  }
  await expect(app.getByTestId('segments-table')).toContainText('auto');
  const points = app.getByTestId('trace-points');
  await expect(points).toContainText('of 60 samples');
  // Zoom into a third of the trace: the page asks the store for that range only.
  await expect(points).toContainText('60 points shown');
  await dragX(app, 0.1, 0.4);
  await expect(points).not.toContainText('60 points shown', { timeout: 15_000 });
  // Brush: drag across the plot in select mode.
  await app.getByTestId('brush-toggle').click();
  await dragX(app, 0.3, 0.6);
  await expect(app.getByTestId('segments-table')).toContainText('brush');
  await go(app, 'history');
  await expect(app.getByTestId('datasets-table')).toContainText('gpu_power.csv');
});

test('a log dropped onto the drop zone is imported (a real drop event with the file in its DataTransfer)', async ({ app }) => {
  await go(app, 'datasets');
  const text = readFileSync('test/fixtures/import/nvidia-smi-units.csv', 'utf8');
  // Built in the page (a browser DataTransfer holding a File), as a drag from the desktop delivers it.
  const dropped = await app.evaluateHandle(`(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([${JSON.stringify(text)}], 'dropped-nvidia-smi.csv', { type: 'text/csv' }));
    return dt;
  })()`);
  const zone = app.getByTestId('import-drop');
  await zone.dispatchEvent('dragover', { dataTransfer: dropped });
  await expect(zone).toHaveClass(/\bover\b/);
  await zone.dispatchEvent('drop', { dataTransfer: dropped });
  await app.getByTestId('import-go').click();
  await expect(app.getByTestId('dataset-facts')).toContainText('nvidia-smi · 4 samples · 1 device ·', { timeout: 60_000 });
  await expect(app.locator('#dataset-title')).toContainText('dropped-nvidia-smi.csv');
});

test('segments given a workload, cap and work done on the page are analysed like a sweep: the CLI gives the same best caps', async ({ app }, info) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'caplab-e2e-segments-'));
  try {
    // 8 GPUs at 10 Hz for 1,000 s: the generator's load phases become automatic segments.
    const file = join(dir, 'phases-nvidia-smi.csv');
    await nvidiaSmiLog(file, 80_000);
    const r = await callApi<{ dataset: { id: number; segments: { id: number; start: number }[] } }>(app, 'importDataset', { import_id: 'e2e-segments', paths: [file], tz: 'UTC', name: 'phases for segments' });
    const segs = [...r.dataset.segments].sort((a, b) => a.start - b.start);
    expect(segs.length).toBeGreaterThanOrEqual(2);
    await app.goto(`${app.url().split('#')[0]}#/datasets/${r.dataset.id}`);
    await expect(app.getByTestId('segments-table')).toContainText('auto');
    // Two phases as two caps of one workload, typed in place (saved on leaving each field).
    const typed: [number, string, string][] = [
      [segs[0]!.id, '300', '52000'],
      // The last phase draws ~630 W per GPU: labelled with a cap it could not have run under, it would be left out
      // as not enforced, leaving one valid cap and no best cap.
      [segs[segs.length - 1]!.id, '700', '40000'],
    ];
    for (const [id, cap, work] of typed) {
      for (const [field, value] of [['workload', 'llm-ft'], ['cap_w', cap], ['units', 'tokens'], ['units_in_window', work]] as const) {
        await app.getByTestId(`segment-${id}-${field}`).fill(value);
        await app.getByTestId(`segment-${id}-${field}`).press('Tab');
      }
    }
    // Kept in the store: a reload shows them.
    await expect.poll(async () => (await callApi<{ segments: { cap_w: number | null }[] }>(app, 'getDataset', { dataset_id: r.dataset.id })).segments.filter((x) => x.cap_w !== null).length).toBe(2);
    await app.reload();
    await expect(app.getByTestId(`segment-${typed[1]![0]}-cap_w`)).toHaveValue('700');
    await app.getByTestId('analyse-segments').click();
    const shown = app.getByTestId('dataset-analysis');
    await expect(shown).toContainText('llm-ft');
    const cli = JSON.parse(
      execFileSync(process.execPath, ['bin/caplab.mjs', 'analyze', '--dataset', String(r.dataset.id), '--json', '--db', join(process.env.CAPLAB_E2E_DIR!, info.project.name === 'electron' ? 'electron.db' : 'lab.db')], { encoding: 'utf8' }),
    ) as { sweep: { groups: { optima: Record<string, { cap_w: number | null }> }[] }; segments: { segment: { id: number }; energy: { energy_j: number; uncertainty_j: number | null } }[] };
    // Each segment's energy with its stated uncertainty, as analyze --dataset gives them.
    const whole = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });
    for (const { segment, energy } of cli.segments) {
      const row = app.locator(`[data-testid="segment-energy-row"][data-segment="${segment.id}"]`);
      await expect(row.getByTestId('energy-j')).toHaveText(whole(energy.energy_j));
      expect(energy.uncertainty_j).toBeGreaterThan(0);
      await expect(row.getByTestId('uncertainty-j')).toHaveText(whole(energy.uncertainty_j!));
    }
    await expect(app.getByTestId('segment-energy')).toContainText('not a statistical confidence interval');
    const optima = cli.sweep.groups[0]!.optima;
    expect(optima['max-efficiency']!.cap_w).not.toBeNull();
    for (const [selector, o] of Object.entries(optima)) await expect(shown).toContainText(`${selector} ${o.cap_w ?? '–'} W`);
    // The per-cap curves the results page draws: efficiency with its two caps, and the Pareto front.
    await expect(app.getByTestId('dataset-efficiency').locator('.main-svg').first()).toBeVisible();
    await expect(app.getByTestId('dataset-pareto').locator('.main-svg').first()).toBeVisible();
    await expect(app.getByTestId('dataset-efficiency').locator('.xtick')).not.toHaveCount(0);
    if (process.env.CAPLAB_SCREENSHOTS && info.project.name === 'chromium') {
      await app.setViewportSize({ width: 1440, height: 1100 });
      await app.getByTestId('dataset-analysis').scrollIntoViewIfNeeded();
      await app.waitForTimeout(1000);
      await app.screenshot({ path: `${process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots'}/dataset-segments-analysis.png` });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a 20 MB log chosen in the browser streams to the host with upload progress and imports as a dataset', async ({ app }, info) => {
  test.skip(info.project.name !== 'chromium', 'the desktop app imports files in place: no upload');
  const dir = mkdtempSync(join(tmpdir(), 'caplab-e2e-upload-'));
  try {
    const file = join(dir, 'big-nvidia-smi.csv');
    await nvidiaSmiLog(file, 160_000);
    expect(statSync(file).size).toBeGreaterThan(18 * 2 ** 20);
    await go(app, 'datasets');
    // Every progress line the page shows, however briefly (a local upload is quick).
    await app.evaluate(`(() => {
      const seen = (window.progressSeen = []);
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid="import-progress"]')?.textContent;
        if (t && seen[seen.length - 1] !== t) seen.push(t);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await app.getByTestId('import-input').setInputFiles(file);
    await app.getByTestId('import-go').click();
    await expect(app.getByTestId('dataset-facts')).toContainText('nvidia-smi · 160,000 samples · 8 devices', { timeout: 90_000 });
    const seen = await app.evaluate<string[]>('window.progressSeen');
    expect(seen.some((t) => /uploading big-nvidia-smi\.csv: [\d.]+ of 2\d MB/.test(t)), seen.join(' | ')).toBe(true);
    // The host's copy is gone once the import ended (the dataset holds the samples).
    const uploads = join(process.env.CAPLAB_E2E_DIR!, 'data', 'uploads');
    expect(readdirSync(uploads).filter((n) => n.endsWith('-big-nvidia-smi.csv'))).toEqual([]);
    if (process.env.CAPLAB_SCREENSHOTS) {
      await go(app, 'datasets');
      await app.screenshot({ path: `${process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots'}/datasets-upload.png` });
    }
    await go(app, 'history');
    await expect(app.getByTestId('datasets-table')).toContainText('big-nvidia-smi.csv');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an NLR aggregated dataset lists its series as node-level power (GPU + CPU), its profiles as segments', async ({ app }) => {
  const r = await callApi<{ dataset: { id: number } }>(app, 'importDataset', { import_id: 'e2e-nlr', paths: [join(process.cwd(), 'test/fixtures/import/nlr-aggregated')], name: 'NLR llama2-70b-lora (fixture)' });
  await app.setViewportSize({ width: 1440, height: 1000 });
  await app.goto(`${app.url().split('#')[0]}#/datasets/${r.dataset.id}`);
  await expect(app.getByTestId('dataset-devices')).toContainText('node-level (GPU + CPU, summed over the nodes)');
  await expect(app.getByTestId('dataset-facts')).toContainText('0.0 – 99.6 s (no wall clock)');
  // Segment labels are editable fields.
  await expect(app.getByTestId('segments-table').locator('input').filter({ visible: true })).not.toHaveCount(0);
  const labels = await app.getByTestId('segments-table').locator('input').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
  expect(labels).toEqual(expect.arrayContaining(['llama2-70b-lora 000001 (nodes=1)', 'llama2-70b-lora 000002 (nodes=2)']));
  if (process.env.CAPLAB_SCREENSHOTS) {
    await app.waitForTimeout(1500);
    await app.screenshot({ path: `${process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots'}/dataset-nlr.png`, fullPage: true });
  }
});

test('a 10-million-sample dataset stays interactive (screenshots)', async ({ app }, info) => {
  test.skip(!process.env.CAPLAB_SCREENSHOTS || info.project.name !== 'chromium', 'set CAPLAB_SCREENSHOTS=1 to import 10 M samples and refresh docs/screenshots');
  test.setTimeout(900_000);
  const out = process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots';
  mkdirSync(out, { recursive: true });
  const file = join(tmpdir(), `caplab-e2e-10M-${process.pid}.csv`);
  await nvidiaSmiLog(file, 10_000_000);
  const r = await callApi<{ dataset: { id: number; samples: number } }>(app, 'importDataset', { import_id: 'e2e-10m', paths: [file], tz: 'UTC', name: '8x H100, 10 M samples (generated)' });
  expect(r.dataset.samples).toBe(10_000_000);
  await app.setViewportSize({ width: 1440, height: 1100 });
  await app.goto(`${app.url().split('#')[0]}#/datasets/${r.dataset.id}`);
  const points = app.getByTestId('trace-points');
  // The whole span decimated from the store: points drawn, no query in flight.
  await expect(points).toHaveText(/^[1-9][\d,]* points shown of 10,000,000 samples/, { timeout: 120_000 });
  await expect(points).toHaveAttribute('aria-busy', 'false');
  await app.waitForTimeout(1500);
  await app.screenshot({ path: `${out}/dataset-10M.png` });
  const before = await points.textContent();
  const t0 = Date.now();
  await dragX(app, 0.45, 0.5);
  await expect(points).not.toHaveText(before!, { timeout: 60_000 });
  await expect(points).toHaveAttribute('aria-busy', 'false', { timeout: 60_000 });
  info.annotations.push({ type: 'zoom re-query', description: `${Date.now() - t0} ms` });
  // A brushed window beside the automatic phases.
  await app.getByTestId('brush-toggle').click();
  await dragX(app, 0.3, 0.45);
  await expect(app.getByTestId('segments-table')).toContainText('brush');
  await app.waitForTimeout(1500);
  await app.screenshot({ path: `${out}/dataset-10M-zoomed.png` });
  await go(app, 'datasets');
  await app.screenshot({ path: `${out}/datasets.png` });
});
