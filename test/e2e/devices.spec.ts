import { test, expect, go } from './fixtures';

test('devices page shows the simulated devices with limits and sensors', async ({ app }) => {
  await go(app, 'devices');
  await expect(app.getByTestId('backend-line')).toContainText('sim');
  const card = app.getByTestId('device-card').first();
  await expect(card).toBeVisible();
  await expect(card).toContainText('simulated');
  await expect(card).toContainText('H100');
  await expect(card.getByTestId('device-limit')).toHaveText('700 W');
  await expect(card).toContainText('200 W – 700 W');
  await expect(card).toContainText('energy counter yes');
  await expect(app.getByTestId('connection')).toContainText(/connected|desktop/);
});

test('idle: the readings and charts move without a sweep (sampleDevices about once a second)', async ({ app }) => {
  await go(app, 'devices');
  await expect(app.getByTestId('gauge-source')).toHaveAttribute('data-source', 'idle');
  const card = app.getByTestId('device-card').first();
  const power = card.getByTestId('r-power');
  // The simulated idle H100 draws ~70 W with sensor noise: a number appears, then changes.
  await expect(power).toContainText(/\d+ W of 700 W/, { timeout: 10_000 });
  const watts = Number(await power.getAttribute('data-value'));
  expect(watts).toBeGreaterThan(20);
  expect(watts).toBeLessThan(200);
  // The reading itself (data-value, unrounded) changes from one poll to the next.
  const v0 = await power.getAttribute('data-value');
  await expect.poll(async () => power.getAttribute('data-value'), { timeout: 10_000 }).not.toBe(v0);
  await expect(card.getByTestId('r-sm')).toContainText(/^SM clock\d+ MHz$/);
  // Charts get a line once two readings are in.
  await expect(card.getByTestId('chart-power').getByTestId('tc-line').first()).toHaveAttribute('d', /^M[\d.]+,[\d.]+L/, { timeout: 10_000 });

  // Polling stops when the page is left: no sampleDevices calls from another page.
  const calls: string[] = [];
  app.on('request', (r) => r.url().includes('/api/sampleDevices') && calls.push(r.url()));
  await go(app, 'history');
  await app.waitForTimeout(2500);
  expect(calls.length).toBeLessThanOrEqual(1); // at most one already in flight
});

test('the page keeps the token in its session storage, drops it from the address bar and sets no cookie', async ({ app }, info) => {
  test.skip(info.project.name === 'electron', 'browser host only');
  await expect(app).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/(#\/.*)?$/);
  expect(await app.context().cookies()).toEqual([]);
  expect(await app.evaluate(() => ((globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('caplab_token') ?? '').length)).toBeGreaterThanOrEqual(32);
  // The page works on it: a call over HTTP and the event socket both authorise.
  await expect(app.getByTestId('nav-devices')).toBeVisible();
});
