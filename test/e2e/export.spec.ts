import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test, expect, callApi } from './fixtures';

test('results: Export gives the PDF report of the sweep, with the page’s best cap', async ({ app }, info) => {
  test.skip(info.project.name === 'electron', 'in the desktop app a download opens a save dialog, which Playwright cannot drive');
  // A warm-up past ViT-L/16's ~20 s ramp: both caps are valid, so there is a best cap to export.
  const plan = { name: 'export e2e', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300, 500], repetitions: 2, warmup: { seconds: 25 }, window: { seconds: 15 }, cooldown_s: 0, sim: { speedup: 100, devices: ['h100-sxm'] } };
  const { sweep_id } = await callApi<{ sweep_id: number }>(app, 'startSweep', { plan });
  await expect
    .poll(async () => (await callApi<{ sweep: { status: string } }>(app, 'getSweep', { sweep_id })).sweep.status, { timeout: 90_000 })
    .toBe('done');
  await app.goto(`${new URL(app.url()).origin}/#/results/${sweep_id}`);
  const best = app.getByTestId('best-cap');
  await expect(best).toHaveText(/^\d+ W$/);
  const bestText = (await best.textContent())!;

  await app.getByTestId('export-button').click();
  // Not a tuning session: no tuning outcome to offer.
  await expect(app.getByTestId('export-caps-csv')).toBeVisible();
  await expect(app.getByTestId('export-tune-csv')).toHaveCount(0);
  // CAPLAB_SCREENSHOTS=1 refreshes the docs' picture of the open menu.
  if (process.env.CAPLAB_SCREENSHOTS) await app.screenshot({ path: 'docs/screenshots/results-export.png' });
  const download = app.waitForEvent('download', { timeout: 90_000 });
  await app.getByTestId('export-pdf').click();
  await expect(app.getByTestId('export-button')).toHaveText(/Exporting PDF report/);
  const d = await download;
  expect(d.suggestedFilename()).toBe(`caplab-sweep-${sweep_id}-report.pdf`);
  const file = info.outputPath('report.pdf');
  await d.saveAs(file);
  expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  expect(text).toContain('The answer');
  expect(text).toContain(`${bestText} gives the most work per joule`);
  await expect(app.getByTestId('export-button')).toHaveText('Export ▾');

  // The per-cap CSV carries the page's analysis too.
  await app.getByTestId('export-button').click();
  const csv = app.waitForEvent('download');
  await app.getByTestId('export-caps-csv').click();
  const c = await csv;
  const csvFile = info.outputPath('caps.csv');
  await c.saveAs(csvFile);
  expect(readFileSync(csvFile, 'utf8').trim().split('\n')).toHaveLength(1 + 2); // header, one row per cap
});

/** Clicks Export, then an item, and saves the download; returns its path. */
async function exportVia(app: import('@playwright/test').Page, item: string, out: string): Promise<{ path: string; name: string }> {
  await app.getByTestId('export-button').click();
  const download = app.waitForEvent('download', { timeout: 90_000 });
  await app.getByTestId(`export-${item}`).click();
  const d = await download;
  await d.saveAs(out);
  await expect(app.getByTestId('export-button')).toHaveText('Export ▾');
  return { path: out, name: d.suggestedFilename() };
}

test('dataset: Export gives the PDF report of the dataset and its samples as CSV', async ({ app }, info) => {
  test.skip(info.project.name === 'electron', 'in the desktop app a download opens a save dialog, which Playwright cannot drive');
  // hpc-ai-perf-bench per-cap folders: segments with their caps and the work done, as a sweep's runs
  const { dataset } = await callApi<{ dataset: { id: number; samples: number } }>(app, 'importDataset', { import_id: 'e2e-export', paths: [resolve('test/fixtures/import/hpcai-tree')], tz: 'UTC', name: 'hpcai per-cap logs' });
  const id = dataset.id;
  await app.goto(`${new URL(app.url()).origin}/#/datasets/${id}`);
  await expect(app.getByTestId('dataset-facts')).toContainText(`${dataset.samples} samples`);

  await app.getByTestId('export-button').click();
  await expect(app.getByTestId('export-segments-csv')).toBeVisible();
  await expect(app.getByTestId('export-runs-csv')).toHaveCount(0);
  // CAPLAB_SCREENSHOTS=1 refreshes the docs' picture of the dataset page's menu.
  if (process.env.CAPLAB_SCREENSHOTS) await app.screenshot({ path: 'docs/screenshots/dataset-export.png' });
  await app.getByTestId('export-button').click();
  const pdf = await exportVia(app, 'pdf', info.outputPath('dataset.pdf'));
  expect(pdf.name).toBe(`caplab-dataset-${id}-report.pdf`);
  expect(readFileSync(pdf.path).subarray(0, 5).toString()).toBe('%PDF-');
  const text = execFileSync('pdftotext', ['-layout', pdf.path, '-'], { encoding: 'utf8' });
  expect(text).toContain(`hpcai per-cap logs (dataset ${id})`);
  expect(text).toContain('The answer');

  const csv = await exportVia(app, 'samples-csv', info.outputPath('samples.csv'));
  expect(csv.name).toBe(`caplab-dataset-${id}-samples.csv`);
  const lines = readFileSync(csv.path, 'utf8').trim().split('\n');
  expect(lines[0]).toMatch(/^t \[s since epoch\],power_w \[W\],/);
  expect(lines).toHaveLength(1 + dataset.samples);
});

test('compare: Export gives the PDF comparison report of both sweeps', async ({ app }, info) => {
  test.skip(info.project.name === 'electron', 'in the desktop app a download opens a save dialog, which Playwright cannot drive');
  // A warm-up past ViT-L/16's ~20 s ramp (as above): with 10 s a loaded machine flagged every run warmup-in-window
  // and the page rightly had no best cap.
  const plan = (device: string) => ({ name: `compare export ${device}`, backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300, 500], repetitions: 2, warmup: { seconds: 25 }, window: { seconds: 15 }, cooldown_s: 0, sim: { speedup: 100, devices: [device] } });
  const ids: number[] = [];
  for (const device of ['h100-sxm', 'h200']) {
    const { sweep_id } = await callApi<{ sweep_id: number }>(app, 'startSweep', { plan: plan(device) });
    await expect.poll(async () => (await callApi<{ sweep: { status: string } }>(app, 'getSweep', { sweep_id })).sweep.status, { timeout: 90_000 }).toBe('done');
    ids.push(sweep_id);
  }
  await app.goto(`${new URL(app.url()).origin}/#/results/${ids[0]}`);
  await expect(app.getByTestId('best-cap')).toHaveText(/^\d+ W$/);
  await app.getByTestId('results-compare').selectOption(String(ids[1]));
  await app.getByTestId('export-button').click();
  await expect(app.getByTestId('export-json')).toHaveText('Comparison (JSON)');
  await app.getByTestId('export-button').click();
  const pdf = await exportVia(app, 'pdf', info.outputPath('compare.pdf'));
  expect(pdf.name).toBe(`caplab-compare-${ids[0]}-${ids[1]}-report.pdf`);
  const text = execFileSync('pdftotext', ['-layout', pdf.path, '-'], { encoding: 'utf8' });
  expect(text).toContain('Comparison of');
  expect(text).toContain(`sweep ${ids[0]}`);
  expect(text).toContain(`sweep ${ids[1]}`);
});

// The app's own PDF printer, without a download: Electron's printToPDF in the desktop app (electron project; skipped
// with its reason where there is no Electron binary), headless Chromium behind the browser host (chromium project).
test('the app prints the report PDF with its own printer (Electron printToPDF in the desktop app)', async ({ app }, info) => {
  const plan = { name: 'printer e2e', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300, 500], repetitions: 2, warmup: { seconds: 25 }, window: { seconds: 15 }, cooldown_s: 0, sim: { speedup: 100, devices: ['h100-sxm'] } };
  const { sweep_id } = await callApi<{ sweep_id: number }>(app, 'startSweep', { plan });
  await expect.poll(async () => (await callApi<{ sweep: { status: string } }>(app, 'getSweep', { sweep_id })).sweep.status, { timeout: 90_000 }).toBe('done');
  const f = await callApi<{ filename: string; mime: string; data_base64: string }>(app, 'exportFile', { sweep_id, format: 'pdf', paper: 'letter' });
  expect(f).toMatchObject({ filename: `caplab-sweep-${sweep_id}-report.pdf`, mime: 'application/pdf' });
  const file = info.outputPath(`printer-${info.project.name}.pdf`);
  writeFileSync(file, Buffer.from(f.data_base64, 'base64'));
  expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
  // Letter paper: 612 x 792 pt
  expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/Page size:\s+612 x 792 pts/);
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  expect(text).toContain('The answer');
  expect(text).toContain(`sweep ${sweep_id}`);
});
