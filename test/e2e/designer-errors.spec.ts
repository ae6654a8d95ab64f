import { test, expect, go } from './fixtures';

test('plan problems appear in words at their fields, all at once, and a blank field is not silently kept', async ({ app }) => {
  await go(app, 'designer');
  await app.getByTestId('template-select').selectOption('demo');
  await app.getByTestId('plan-backend').selectOption('sim');
  await expect(app.getByTestId('validation-ok')).toBeVisible();

  // Schema problems and device problems together: repetitions 0, a cap step of 0, and caps above the H100's range.
  await app.getByTestId('repetitions').fill('0');
  await app.getByTestId('caps-mode-grid').click();
  await app.getByTestId('caps-from').fill('300');
  await app.getByTestId('caps-to').fill('800');
  await app.getByTestId('caps-step').fill('0');
  await expect(app.getByTestId('repetitions-error')).toHaveText('Repetitions must be at least 1 (got 0)');
  await expect(app.getByTestId('caps-step-error')).toHaveText('a step of at least 0.01 W (got 0)');
  await expect(app.getByTestId('start-sweep')).toBeDisabled();
  await app.getByTestId('caps-step').fill('100');
  await expect(app.getByTestId('caps-step-error')).toHaveCount(0);
  // Device check and schema check at the same time: the cap range and repetitions both reported.
  await expect(app.getByTestId('caps-error')).toContainText(/800 W is outside the allowed range of .*200-700 W/);
  await expect(app.getByTestId('repetitions-error')).toBeVisible();
  const side = app.getByTestId('validation-errors');
  await expect(side).toContainText('Repetitions must be at least 1');
  await expect(side).toContainText('Caps: 800 W is outside');
  await expect(side).not.toContainText(/Too small|Invalid input|expected number/);

  // A blank number says so at once and blocks the start; it does not keep the old value behind the user's back.
  await app.getByTestId('repetitions').fill('');
  await expect(app.getByTestId('repetitions-error')).toContainText('empty');
  await expect(app.getByTestId('repetitions')).toHaveAttribute('aria-invalid', 'true');
  await expect(app.getByTestId('start-sweep')).toBeDisabled();
  await app.getByTestId('repetitions').fill('2');
  await app.getByTestId('caps-to').fill('700');
  await expect(app.getByTestId('validation-ok')).toHaveText('Plan is valid.');
  await expect(app.getByTestId('repetitions-error')).toHaveCount(0);
  await expect(app.getByTestId('caps-error')).toHaveCount(0);

  // A YAML file with problems is not loaded, says so, and the side panel does not call the file valid.
  await app.getByTestId('load-yaml').setInputFiles({ name: 'broken.yaml', mimeType: 'application/yaml', buffer: Buffer.from('workloads: [{id: vit_l_16}]\ncaps: [300]\nrepetitions: 0\ncolour: blue\n') });
  const banner = app.getByTestId('yaml-errors');
  await expect(banner).toContainText('Not loaded: broken.yaml has 2 problems');
  await expect(banner).toContainText('Repetitions must be at least 1 (got 0)');
  await expect(banner).toContainText('unknown field colour');
  await expect(app.getByTestId('validation-ok')).toHaveText('The form is valid (the file was not loaded).');
});
