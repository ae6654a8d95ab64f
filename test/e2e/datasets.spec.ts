// The Datasets page: import by drop (file input), the trace re-queried on zoom, a brushed segment, History's list.
// With CAPLAB_SCREENSHOTS=1 it also imports a 10-million-sample nvidia-smi log and takes docs/screenshots.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  await expect(app.getByTestId('dataset-facts')).toContainText('nvidia-smi · 60 samples · 1 devices');
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
  await expect(app.getByTestId('trace-points')).toContainText('of 10,000,000 samples', { timeout: 60_000 });
  await app.waitForTimeout(1500);
  await app.screenshot({ path: `${out}/dataset-10M.png` });
  const before = await app.getByTestId('trace-points').textContent();
  const t0 = Date.now();
  await dragX(app, 0.45, 0.5);
  await expect(app.getByTestId('trace-points')).not.toHaveText(before!, { timeout: 30_000 });
  info.annotations.push({ type: 'zoom re-query', description: `${Date.now() - t0} ms` });
  await app.waitForTimeout(1500);
  await app.screenshot({ path: `${out}/dataset-10M-zoomed.png` });
  await go(app, 'datasets');
  await app.screenshot({ path: `${out}/datasets.png` });
});
