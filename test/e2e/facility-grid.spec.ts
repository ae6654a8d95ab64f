// The Facility page with a grid config (the shipped 256-GPU demand-response site): the grid and event tables, the
// event's requested vs delivered chart, day zoom of the power series; and Cancel stopping a run in progress.
import { test, expect, go } from './fixtures';

test('facility page: a demand-response event shows its grid table, event row and chart; day zoom', async ({ app }) => {
  test.setTimeout(180_000);
  await go(app, 'facility');
  await app.getByTestId('facility-config').selectOption('field-demo-256');
  await expect(app.getByTestId('facility-yaml')).toHaveValue(/reduce_pct: 25/);
  await app.getByTestId('facility-replicas').fill('1');
  await app.getByTestId('facility-run').click();
  await expect(app.getByTestId('facility-done')).toBeVisible({ timeout: 150_000 });
  await expect(app.getByTestId('facility-grid')).toContainText('Grid: no flexibility');
  await app.getByRole('tablist', { name: 'Scenario' }).getByRole('button', { name: 'caps only', exact: true }).click();
  const row = app.getByTestId('facility-events').locator('tbody tr').first();
  await expect(row).toContainText('25 % for 3 h');
  await expect(row).toContainText('100 %');
  await expect(app.getByTestId('facility-event-0').locator('.main-svg').first()).toBeVisible();
  // The power series: the replica band (two traces), IT and the grid draw; zoomed to the event's day.
  await expect(app.getByTestId('facility-series').locator('.scatterlayer .trace')).toHaveCount(4);
  await app.getByTestId('facility-zoom').getByRole('button', { name: 'Day' }).click();
  await expect(app.getByTestId('facility-zoom-range')).toHaveText('days 5.0–6.0');
});

test('facility page: Cancel stops a run in progress and the page can run again', async ({ app }) => {
  test.setTimeout(120_000);
  await go(app, 'facility');
  await app.getByTestId('facility-config').selectOption('nlr-colocation');
  await app.getByTestId('facility-replicas').fill('16');
  await app.getByTestId('facility-run').click();
  await expect(app.getByTestId('facility-cancel')).toBeVisible();
  await app.getByTestId('facility-cancel').click();
  await expect(app.getByTestId('facility-run')).toHaveText('Run', { timeout: 30_000 });
  await expect(app.getByTestId('facility-cancel')).toHaveCount(0);
  await expect(app.getByTestId('facility-error')).toHaveCount(0);
  await expect(app.getByTestId('facility-done')).toHaveCount(0);
});
