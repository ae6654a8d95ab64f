// Issue #29 item 1: the Devices page as a live bench (readings, charts with axes and windows, CPU packages,
// what a backend does not report), and the "Not authorised" fix. Screenshots at 1280x800 and 1920x1080.
import { test, expect, go } from './fixtures';

const shots = 'docs/screenshots';

test('each GPU shows utilisation, memory used/total, power vs limit, clocks, temperature, throttle reasons; fan and processes say not reported', async ({ app }) => {
  await go(app, 'devices');
  const card = app.getByTestId('device-card').first();
  await expect(card.getByTestId('r-power')).toContainText(/\d+ W of 700 W/, { timeout: 10_000 });
  await expect(card.getByTestId('r-util')).toContainText(/^Utilisation\d+ %$/);
  // The simulated H100 preset has 81559 MB: used / total in GiB and the share.
  await expect(card.getByTestId('r-mem')).toContainText(/^Memory used\d+\.\d \/ 79\.6 GiB \(\d+ %\)$/);
  await expect(card.getByTestId('r-enforced')).toHaveText('Enforced limit700 W');
  await expect(card.getByTestId('r-sm')).toContainText(/^SM clock\d+ MHz$/);
  await expect(card.getByTestId('r-memclock')).toHaveText('Memory clock2619 MHz');
  await expect(card.getByTestId('r-temp')).toContainText(/^Temperature\d+ °C$/);
  // Idle, uncapped: no clock-event reason is set, said in words.
  await expect(card.getByTestId('r-throttle')).toHaveText('Throttle reasonsnone');
  // The simulator models no fan and no processes: said so, never a 0.
  await expect(card.getByTestId('r-fan')).toHaveText('Fannot reported');
  await expect(card.getByTestId('r-fan')).toHaveAttribute('title', 'not reported (not simulated)');
  await expect(card.getByTestId('r-processes')).toHaveText('Processes: not reported (not simulated)');
  await expect(card.getByTestId('sim-note')).toContainText('come from CapLab’s model; no fan, no process list');
  await expect(card).not.toContainText(/Fan\s*0/);
});

test('history charts have axes and a 5/15/60 min window; CPU packages sit beside the GPUs', async ({ app }) => {
  await go(app, 'devices');
  const card = app.getByTestId('device-card').first();
  const chart = card.getByTestId('chart-power');
  await expect(chart.getByTestId('tc-line').first()).toHaveAttribute('d', /^M[\d.]+,[\d.]+L/, { timeout: 15_000 });
  // y axis in watts from 0 to a round tick at or above the 700 W max limit, x axis in minutes before now.
  await expect(chart.getByTestId('y-tick')).toHaveText(['0', '200', '400', '600', '800']);
  await expect(chart.getByTestId('x-tick').first()).toHaveText('−5 min');
  await expect(chart.getByTestId('x-tick').last()).toHaveText('now');
  for (const id of ['chart-util', 'chart-mem', 'chart-clock', 'chart-temp']) await expect(card.getByTestId(id).getByTestId('tc-line').first()).toHaveAttribute('d', /^M/);
  await app.getByTestId('chart-window').getByRole('button', { name: 'last 15 min' }).click();
  await expect(chart.getByTestId('x-tick').first()).toHaveText('−15 min');
  await app.getByTestId('chart-window').getByRole('button', { name: 'last 60 min' }).click();
  await expect(chart.getByTestId('x-tick')).toHaveText(['−60 min', '−45 min', '−30 min', '−15 min', 'now']);
  await app.getByTestId('chart-window').getByRole('button', { name: 'last 5 min' }).click();

  // RAPL packages where this host has them, else why not (this VM: no powercap); never an empty or 0 W card.
  const cpu = app.getByTestId('cpu-packages');
  await expect(cpu).toBeVisible();
  const cards = await cpu.getByTestId('cpu-card').count();
  if (cards === 0) await expect(cpu.getByTestId('cpu-not-reported')).toHaveText(/^not reported(: .+)?$/);
  else await expect(cpu.getByTestId('r-cpu-power').first()).toContainText(/\d+ W|not reported/);

  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await app.setViewportSize({ width: w, height: h });
    await app.waitForTimeout(1200);
    await app.screenshot({ path: `${shots}/devices-live-${w}x${h}.png` });
  }
  // At 1920 px the charts of one GPU sit side by side: several in one row.
  const boxes = await Promise.all(['chart-power', 'chart-util', 'chart-mem'].map((id) => card.getByTestId(id).boundingBox()));
  expect(new Set(boxes.map((b) => Math.round(b!.y))).size).toBe(1);
});

test('under "Not authorised" the Devices page says it cannot read devices, not "No devices found… Choose sim"', async ({ browser, hostUrl }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(hostUrl.replace(/#.*$/, ''));
  await expect(page.getByText('Not authorised')).toBeVisible({ timeout: 10_000 });
  await page.getByTestId('nav-devices').click();
  await expect(page.getByTestId('devices-unauthorised')).toHaveText('Devices cannot be read until this page is authorised (see above).');
  await expect(page.getByTestId('empty-state')).toHaveCount(0);
  await expect(page.getByText(/Choose sim/)).toHaveCount(0);
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: `${shots}/devices-unauthorised-${w}x${h}.png` });
  }
  await page.context().close();
});
