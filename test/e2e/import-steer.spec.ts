// The Datasets page's import preview: a file no format recognises says what the page can do; picking the format,
// the field list and the time zone changes the preview; Import takes the same options (docs/screenshots/import-*).
import type { Page } from '@playwright/test';
import { test, expect, go, callApi } from './fixtures';
import type { DatasetRecord } from '../../src/shared/dataset';

async function shoot(app: Page, name: string): Promise<void> {
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await app.setViewportSize({ width: w, height: h });
    await app.getByTestId('import-preview').scrollIntoViewIfNeeded();
    await app.screenshot({ path: `docs/screenshots/import-${name}-${w}x${h}.png` });
  }
  await app.setViewportSize({ width: 1400, height: 900 });
}

test('an unrecognised log is steered to a preview (format, field list, time zone) and imported with those options', async ({ app }) => {
  await go(app, 'datasets');
  await app.getByTestId('import-input').setInputFiles('test/fixtures/import/gpu-noheader-iso.log');
  const preview = app.getByTestId('import-preview');
  const issues = preview.getByTestId('preview-issues');
  await expect(issues).toContainText('No format recognises this file. Pick its format in the list above');
  await expect(issues).not.toContainText('--format');
  await expect(preview.getByTestId('preview-head')).toContainText('2026-11-30T08:45:57.673, 0, 612.45, 1980, 61');
  await expect(app.getByTestId('import-go')).toBeDisabled();
  await shoot(app, 'unrecognised');

  // The issue's action takes the user to the format picker.
  await issues.getByRole('button', { name: 'Pick a format' }).click();
  await expect(app.getByTestId('import-format')).toBeFocused();
  await app.getByTestId('import-format').selectOption('nvidia-smi');
  await expect(preview.getByTestId('preview-format')).toHaveText('read as nvidia-smi');
  await expect(issues).toContainText('No nvidia-smi header line: give the field list');
  await expect(app.getByTestId('import-go')).toBeDisabled();

  await app.getByTestId('import-fields').fill('timestamp,index,power.draw,clocks.sm,temperature.gpu');
  await app.getByTestId('import-tz').fill('UTC');
  const rows = preview.getByTestId('preview-rows');
  await expect(rows.locator('tbody tr').first()).toContainText('2026-11-30 08:45:57.673 UTC');
  await expect(rows.locator('thead')).toContainText('power (average) (W)');
  await expect(rows.locator('tbody tr').first()).toContainText('612.45');
  await expect(preview.getByTestId('preview-columns')).toContainText('power.draw');
  await expect(preview.getByTestId('preview-columns')).toContainText('SM clock');
  await expect(rows.locator('tbody tr')).toHaveCount(6);

  // Naive timestamps read in New York (EST, UTC-5) are five hours later in UTC.
  await app.getByTestId('import-tz').fill('America/New_York');
  await expect(rows.locator('tbody tr').first()).toContainText('2026-11-30 13:45:57.673 UTC');
  await expect(issues).toContainText('Timestamps carry no time zone: read as America/New_York');
  await expect(app.getByTestId('import-go')).toBeEnabled();
  await shoot(app, 'preview');

  await app.getByTestId('import-go').click();
  await expect(app.getByTestId('dataset-facts')).toContainText('nvidia-smi · 6 samples · 2 devices ·', { timeout: 60_000 });
  await expect(app.getByTestId('dataset-facts')).toContainText('America/New_York');
  const id = Number(/#\/datasets\/(\d+)/.exec(app.url())![1]);
  const ds = await callApi<DatasetRecord>(app, 'getDataset', { dataset_id: id });
  expect(ds).toMatchObject({ name: 'gpu-noheader-iso.log', format: 'nvidia-smi', timezone: 'America/New_York', t_start: Date.UTC(2026, 10, 30, 13, 45, 57, 673) / 1000 });
});

test('a detected log shows its columns at once; a bad zone is named; Cancel writes nothing', async ({ app }) => {
  await go(app, 'datasets');
  const before = (await callApi<DatasetRecord[]>(app, 'listDatasets', {})).length;
  await app.getByTestId('import-input').setInputFiles('test/fixtures/import/nvidia-smi-units.csv');
  const preview = app.getByTestId('import-preview');
  await expect(preview.getByTestId('preview-detected')).toHaveText('detected: nvidia-smi');
  await expect(preview.getByTestId('preview-columns')).toContainText('power.draw.instant');
  await expect(preview.getByTestId('preview-columns')).toContainText('power (instant)');
  await app.getByTestId('import-tz').fill('Mars/Olympus');
  await expect(preview.getByTestId('import-preview-error')).toContainText('unknown time zone "Mars/Olympus"');
  await expect(app.getByTestId('import-go')).toBeDisabled();
  await app.getByTestId('import-cancel').click();
  await expect(app.getByTestId('import-drop')).toBeVisible();
  expect((await callApi<DatasetRecord[]>(app, 'listDatasets', {})).length).toBe(before);
});
