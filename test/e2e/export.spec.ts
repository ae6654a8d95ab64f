import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test, expect, callApi } from './fixtures';

test('results: Export gives the PDF report of the sweep, with the page’s best cap', async ({ app }, info) => {
  test.skip(info.project.name === 'electron', 'in the desktop app a download opens a save dialog, which Playwright cannot drive');
  const plan = { name: 'export e2e', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300, 500], repetitions: 2, warmup: { seconds: 10 }, window: { seconds: 10 }, cooldown_s: 0, sim: { speedup: 100, devices: ['h100-sxm'] } };
  const { sweep_id } = await callApi<{ sweep_id: number }>(app, 'startSweep', { plan });
  await expect
    .poll(async () => (await callApi<{ sweep: { status: string } }>(app, 'getSweep', { sweep_id })).sweep.status, { timeout: 90_000 })
    .toBe('done');
  await app.goto(`${new URL(app.url()).origin}/#/results/${sweep_id}`);
  const best = app.getByTestId('best-cap');
  await expect(best).toHaveText(/^\d+ W$/);
  const bestText = (await best.textContent())!;

  await app.getByTestId('export-button').click();
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
