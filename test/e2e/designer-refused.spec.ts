import { test, expect, go } from './fixtures';

// A startSweep the engine refuses shows each problem at its field, as a check's do. The plan checked fine; the
// request to start it is changed on its way (caps 900 W, over the simulated GPU's range) so that the real host
// refuses it, as it would a plan whose device changed between the check and the start.
test('a refused start shows its problems at their fields until the form changes', async ({ app }) => {
  await go(app, 'designer');
  await app.getByTestId('template-select').selectOption('demo');
  await app.getByTestId('plan-backend').selectOption('sim');
  await expect(app.getByTestId('validation-ok')).toBeVisible();

  await app.route('**/api/startSweep', async (route) => {
    const body = JSON.parse(route.request().postData() ?? '{}') as { plan: { caps: unknown } };
    body.plan.caps = [900];
    await route.continue({ postData: JSON.stringify(body) });
  });
  await app.getByTestId('start-sweep').click();

  await expect(app.getByTestId('caps-error')).toContainText(/900 W is outside the allowed range of .*200-700 W/);
  await expect(app.getByTestId('start-refused')).toContainText('Caps: 900 W is outside');
  await expect(app.getByTestId('validation-ok')).toHaveCount(0);
  // Still on the designer: nothing started.
  await expect(app.getByTestId('nav-designer')).toHaveAttribute('aria-current', 'page');

  // The form changes: the refusal no longer describes it, and the fresh check is what the fields show.
  await app.unroute('**/api/startSweep');
  await app.getByTestId('repetitions').fill('3');
  await expect(app.getByTestId('start-refused')).toHaveCount(0);
  await expect(app.getByTestId('caps-error')).toHaveCount(0);
  await expect(app.getByTestId('validation-ok')).toBeVisible();
});
