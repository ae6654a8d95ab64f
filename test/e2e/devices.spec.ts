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

test('the page keeps the token as a cookie and drops it from the address bar', async ({ app }, info) => {
  test.skip(info.project.name === 'electron', 'browser host only');
  await expect(app).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/(#.*)?$/);
  const cookies = await app.context().cookies();
  const c = cookies.find((x) => x.name.startsWith('caplab_token_'));
  expect(c?.httpOnly).toBe(true);
  expect(c?.sameSite).toBe('Strict');
});
