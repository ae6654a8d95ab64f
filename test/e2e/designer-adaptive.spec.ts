import { test, expect, go } from './fixtures';

test('designer: stop-early options give the adaptive estimate beside the fixed one, and their problems at the field', async ({ app }) => {
  await go(app, 'designer');
  await app.getByTestId('template-select').selectOption('demo');
  await app.getByTestId('plan-backend').selectOption('sim');
  await expect(app.getByTestId('validation-ok')).toBeVisible();
  await expect(app.getByTestId('adaptive-estimate')).toHaveCount(0);
  await app.getByTestId('adaptive-window').check();
  await app.getByTestId('adaptive-cooldown').check();
  await app.getByTestId('adaptive-repetitions').check();
  await app.getByTestId('adaptive-max-per-cap').fill('4');
  await expect(app.getByTestId('validation')).toHaveAttribute('data-validating', 'false');
  await expect(app.getByTestId('validation-ok')).toBeVisible();
  const estimate = app.getByTestId('adaptive-estimate');
  await expect(estimate).toHaveText(/^about .+, at most .+ \(fixed: .+\)$/);
  await expect(app.getByTestId('estimate')).not.toHaveText('–');
  await app.getByTestId('adaptive-margin').fill('0');
  await expect(app.getByTestId('validation-errors')).toContainText('adaptive.margin');
  await expect(app.getByTestId('adaptive-margin-error')).toBeVisible();
});
