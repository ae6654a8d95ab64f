import { test, expect, go, screenshotSizes } from './fixtures';

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
  // Caps measured once are judged on the pooled spread unless the user turns it off.
  await expect(app.getByTestId('adaptive-pool-single')).toBeChecked();
  await expect(app.getByTestId('validation')).toHaveAttribute('data-validating', 'false');
  await expect(app.getByTestId('validation-ok')).toBeVisible();
  const estimate = app.getByTestId('adaptive-estimate');
  await expect(estimate).toHaveText(/^about .+, at most .+ \(fixed: .+\)$/);
  await expect(app.getByTestId('estimate')).not.toHaveText('–');
  // The template's note (a toast) goes on a click, so it hides nothing in the screenshots.
  for (const t of await app.locator('.toast').all()) await t.click();
  await expect(app.locator('.toast')).toHaveCount(0);
  await screenshotSizes(app, 'adaptive-options', 'designer-adaptive');
  await app.getByTestId('adaptive-margin').fill('0');
  await expect(app.getByTestId('validation-errors')).toContainText('adaptive.margin');
  await expect(app.getByTestId('adaptive-margin-error')).toBeVisible();

  // Run it: the console says why each run is done, the results what adaptivity saved.
  await app.getByTestId('adaptive-margin').fill('2');
  await app.getByTestId('adaptive-max-per-cap').fill('2');
  await app.getByTestId('caps-mode-list').click();
  await app.getByTestId('caps-list').fill('300, 400');
  await app.getByTestId('repetitions').fill('1');
  await app.getByTestId('warmup').fill('20');
  await app.getByTestId('window').fill('60');
  await app.getByTestId('cooldown').fill('10');
  await app.getByTestId('sim-speedup').fill('40');
  await expect(app.getByTestId('validation-ok')).toBeVisible();
  await app.getByTestId('start-sweep').click();
  await expect(app.getByTestId('run-reason')).toContainText(/cap \d+ W: first pass \(the plan grid\), repetition 1/, { timeout: 60_000 });
  await expect(app.getByTestId('sweep-status')).toContainText('done', { timeout: 120_000 });
  await app.getByTestId('open-results').click();
  await expect(app.getByTestId('adaptive-saved')).toContainText(/Adaptive plan: .+ of device time against .+ with the plan's figures fixed/);
});
