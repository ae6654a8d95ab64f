// The Facility page with a grid config (the shipped 256-GPU demand-response site): the grid and event tables, the
// event's requested vs delivered chart, day and week zoom of the power series at full resolution (the engine sends the
// window only; screenshots docs/screenshots/facility-zoom-*.png); and Cancel stopping a run in progress.
import { test, expect, go } from './fixtures';

test('facility page: a demand-response event shows its grid table, event row and chart; day and week zoom at full resolution', async ({ app }, info) => {
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
  await expect(app.getByTestId('facility-series')).toContainText('means per 7 min');
  await app.getByTestId('facility-zoom').getByRole('button', { name: 'Day' }).click();
  await expect(app.getByTestId('facility-zoom-range')).toHaveText('days 5.0–6.0');
  // Zoomed: the day's 1,440 one-minute steps from the engine (IT and grid draw; the band is the whole horizon's only).
  await expect(app.getByTestId('facility-zoom-resolution')).toHaveText('1,440 points, every 1 min step', { timeout: 30_000 });
  await expect(app.getByTestId('facility-series').locator('.scatterlayer .trace')).toHaveCount(2);
  await expect(app.getByTestId('facility-series')).toContainText('every 1 min step');
  if (info.project.name === 'chromium') {
    // The battery's scenario for the pictures: its grid draw parts from IT power in the event window.
    await app.getByRole('tablist', { name: 'Scenario' }).getByRole('button', { name: 'caps + pause + battery', exact: true }).click();
    await expect(app.getByTestId('facility-series')).toContainText('caps + pause + battery, 80 %: power (every 1 min step)');
    await expect(app.getByTestId('facility-zoom-resolution')).toHaveText('1,440 points, every 1 min step', { timeout: 30_000 });
    for (const [w, h] of [
      [1280, 800],
      [1920, 1080],
    ] as const) {
      await app.setViewportSize({ width: w, height: h });
      // The zoom bar at the top of the view, the plot under it.
      await app.getByTestId('facility-zoom').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      // Plotly redraws on resize: wait for the plot to fill its card at this width before the picture.
      await expect(async () => {
        const plot = await app.getByTestId('facility-series').locator('.main-svg').first().boundingBox();
        const card = await app.getByTestId('facility-series').boundingBox();
        expect(Math.abs(plot!.width - card!.width)).toBeLessThan(40);
      }).toPass({ timeout: 20_000 });
      await app.screenshot({ path: `${process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots'}/facility-zoom-${w}x${h}.png` });
    }
  }
  await app.getByTestId('facility-zoom').getByRole('button', { name: 'Week' }).click();
  await expect(app.getByTestId('facility-zoom-resolution')).toHaveText('10,080 points, every 1 min step', { timeout: 30_000 });
  await expect(app.getByTestId('facility-zoom-range')).toHaveText('days 0.0–7.0');
  await app.getByTestId('facility-zoom').getByRole('button', { name: 'Whole horizon' }).click();
  await expect(app.getByTestId('facility-series')).toContainText('means per 7 min');
  await expect(app.getByTestId('facility-series').locator('.scatterlayer .trace')).toHaveCount(4);
  // A window dragged on the plot (about a seventh of the week) comes back at full resolution too.
  const box = (await app.getByTestId('facility-series').locator('.nsewdrag').first().boundingBox())!;
  await app.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
  await app.mouse.down();
  await app.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.52, { steps: 10 });
  await app.mouse.up();
  await expect(app.getByTestId('facility-zoom-resolution')).toHaveText(/^1,\d{3} points, every 1 min step$/, { timeout: 30_000 });
  await expect(app.getByTestId('facility-series')).toContainText('every 1 min step');
  await app.getByTestId('facility-zoom').getByRole('button', { name: 'Whole horizon' }).click();
  await expect(app.getByTestId('facility-series')).toContainText('means per 7 min');
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
