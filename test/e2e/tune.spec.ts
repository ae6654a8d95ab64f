// "Tune a job" (issue 27) in the app: the form turns a command line into the argv it will run, Start begins a
// tuning session through the engine (startTune), the Run console shows it live (visits as runs, the cap set, the
// cap held, the profiling share) and the finished session is in History and Results like the CLI's. The job is
// CapLab's simulated workload (`caplab sim-workload`, as the CLI's tune tests run it) on the host's simulated GPUs.
// Screenshots: docs/screenshots/tune-form-*.png and tune-console-*.png at 1280x800 and 1920x1080.
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect, go, callApi } from './fixtures';

const shots = process.env.CAPLAB_SCREENSHOTS_DIR ?? 'docs/screenshots';
const SIZES = [
  [1280, 800],
  [1920, 1080],
] as const;

async function screenshots(app: Page, name: string, chromium: boolean): Promise<void> {
  if (!chromium) return;
  for (const [w, h] of SIZES) {
    await app.setViewportSize({ width: w, height: h });
    // Charts redraw to the new width on their next frame: wait until each plot fills its card.
    await expect
      .poll(() =>
        app.locator('.js-plotly-plot').evaluateAll((plots) => plots.every((p) => Math.abs((p.querySelector('.main-svg')?.getBoundingClientRect().width ?? 0) - p.getBoundingClientRect().width) < 4)),
      )
      .toBe(true);
    await app.screenshot({ path: `${shots}/${name}-${w}x${h}.png` });
  }
  await app.setViewportSize({ width: 1280, height: 800 });
}

test('tune a simulated job from the app: the argv shown back, live on the console, then in History and Results', async ({ app }, info) => {
  test.setTimeout(240_000);
  const chromium = info.project.name === 'chromium';
  const sim = join(process.env.CAPLAB_E2E_DIR!, 'sim');
  const cli = join(process.cwd(), 'bin', 'caplab.mjs');
  await go(app, 'tune');
  await expect(app.getByTestId('page-hint')).toContainText('profiles caps');

  // A line with an open quote is refused at its field; nothing can start.
  await app.getByTestId('tune-command').fill('python "train.py');
  await expect(app.getByTestId('tune-command-error')).toHaveText('the command has an unclosed double quote');
  await expect(app.getByTestId('start-tune')).toBeDisabled();

  // The simulated job, quoted as a shell would quote it; shown back word by word, with no shell between.
  await app.getByTestId('tune-command').fill(`"${process.execPath}" '${cli}' sim-workload --workload vit_l_16 --devices 0 --state-dir "${sim}" --max-steps 3000`);
  await expect(app.getByTestId('tune-argv')).toHaveText([process.execPath, cli, 'sim-workload', '--workload', 'vit_l_16', '--devices', '0', '--state-dir', sim, '--max-steps', '3000']);
  await app.getByTestId('tune-backend').selectOption('sim');
  await app.getByTestId('tune-cwd').fill(process.cwd());
  await app.getByTestId('tune-devices').fill('0');
  await app.getByTestId('tune-selector').selectOption('max-efficiency');
  await app.getByTestId('tune-job-seconds').fill('1500');
  await app.getByTestId('tune-max-share').fill('25');
  await app.getByTestId('tune-sim-speedup').fill('100');
  await app.getByTestId('tune-sim-devices').fill('h100-sxm');
  await app.getByTestId('tune-margin').fill('150');
  await expect(app.getByTestId('tune-margin-error')).toBeVisible();
  await app.getByTestId('tune-margin').fill('2');
  await expect(app.getByTestId('tune-ok')).toBeVisible();

  // Every startTune option has a field: hold, seed and the time-outs under "Advanced", with the CLI's defaults.
  await expect(app.getByTestId('tune-seed')).toBeHidden();
  await app.getByTestId('tune-advanced').locator('summary').click();
  await expect(app.getByTestId('tune-hold')).toHaveValue('');
  await expect(app.getByTestId('tune-seed')).toHaveValue('1');
  await expect(app.getByTestId('tune-rate-timeout')).toHaveValue('600');
  await expect(app.getByTestId('tune-hang-timeout')).toHaveValue('300');
  // A problem is shown at its field; the form is kept over a reload, and the disclosure then opens by itself to show it.
  await app.getByTestId('tune-seed').fill('1.5');
  await app.getByTestId('tune-hold').fill('300W');
  await app.reload();
  await expect(app.getByTestId('tune-advanced')).toHaveAttribute('open', '');
  await expect(app.getByTestId('tune-seed-error')).toHaveText('the seed is a whole number');
  await expect(app.getByTestId('tune-hold-error')).toHaveText('hold: "300W" is not a number of watts (like 300); leave it blank to profile');
  await expect(app.getByTestId('start-tune')).toBeDisabled();
  await app.getByTestId('tune-hold').fill('-5');
  await expect(app.getByTestId('tune-hold-error')).toHaveText('the cap to hold is more than 0 W');
  await app.getByTestId('tune-rate-timeout').fill('0');
  await expect(app.getByTestId('tune-rate-timeout-error')).toHaveText('the wait for a rate is more than 0 s');
  await app.getByTestId('tune-hold').fill('');
  await app.getByTestId('tune-seed').fill('7');
  await app.getByTestId('tune-rate-timeout').fill('120');
  await app.getByTestId('tune-hang-timeout').fill('120');
  await expect(app.getByTestId('tune-ok')).toBeVisible();
  await expect(app.getByTestId('tune-hold-note')).toHaveCount(0);
  await screenshots(app, 'tune-form', chromium);
  await app.getByTestId('start-tune').click();

  // The console follows the session live: the tuner's stage and cap, then visits finishing as runs.
  await expect(app.getByTestId('nav-console')).toHaveAttribute('aria-current', 'page');
  await expect(app.getByTestId('tune-panel')).toBeVisible();
  await expect(app.locator('#console-title')).toContainText('tuning session #');
  await expect(app.getByTestId('tune-stage')).toHaveAttribute('data-stage', /visit|hold/, { timeout: 120_000 });
  await expect(app.getByTestId('console-runs').locator('tbody tr').filter({ hasText: 'command' }).first()).toBeVisible({ timeout: 120_000 });
  await expect(app.getByTestId('tune-share')).toContainText(/% of the job so far; budget 6m 15s/);
  await expect(app.getByTestId('terminal')).toContainText(/\S/, { timeout: 30_000 });
  // The "started" toast would cover the traces in the picture; it goes by itself after 5 s.
  await expect(app.locator('.toast')).toHaveCount(0, { timeout: 20_000 });
  await screenshots(app, 'tune-console', chromium);

  // It ends by itself (the job's 3,000 steps), holding a cap, with the limit restored.
  await expect(app.getByTestId('sweep-status')).toContainText('done', { timeout: 180_000 });
  await expect(app.getByTestId('tune-stage')).toHaveAttribute('data-stage', 'ended');
  await expect(app.getByTestId('tune-held')).toHaveText(/^\d+ W$/);
  await expect(app.getByTestId('finished-banner')).toContainText('Tuning session done.');
  await expect(app.getByTestId('finished-banner')).toContainText(/Restored .* to \d+ W/);
  const held = (await app.getByTestId('tune-held').textContent())!;
  const title = (await app.locator('#console-title').textContent())!;
  const id = /#(\d+)/.exec(title)![1]!;
  const visits = await app.getByTestId('console-runs').locator('tbody tr').filter({ hasText: 'command' }).count();
  expect(visits).toBeGreaterThanOrEqual(10);
  expect(await app.getByTestId('console-runs').locator('tbody tr').filter({ hasText: held }).count()).toBeGreaterThanOrEqual(2);

  // Opened afresh after the end (a reloaded page: no live event of the session reaches it), the tuner panel shows
  // the stored outcome: what the live panel last said.
  const liveShare = (await app.getByTestId('tune-share').textContent())!;
  const liveNote = (await app.getByTestId('tune-note').textContent())!;
  expect(liveShare).toContain(`${visits} visits`);
  expect(liveShare).not.toContain('so far');
  expect(liveNote).toMatch(new RegExp(`^held ${held}`));
  await app.goto(`${app.url().replace(/#.*$/, '')}#/console/${id}`);
  await app.reload();
  await expect(app.getByTestId('tune-panel')).toBeVisible();
  await expect(app.getByTestId('tune-stage')).toHaveAttribute('data-stage', 'ended');
  await expect(app.getByTestId('tune-held')).toHaveText(held);
  await expect(app.getByTestId('tune-share')).toHaveText(liveShare);
  await expect(app.getByTestId('tune-note')).toHaveText(liveNote);
  await expect(app.locator('#console-title')).toContainText(`tuning session #${id}`);
  await expect(app.getByTestId('runs-done')).toContainText(`${visits} visits`);
  await expect(app.getByTestId('finished-banner')).toContainText('Tuning session done. The traces below are replayed from the database.');
  await screenshots(app, 'tune-console-ended', chromium);

  // History lists it as the CLI's sessions are listed, with every visit a run; Results opens it.
  await go(app, 'history');
  await app.getByTestId('history-search').fill('sim-workload --workload vit_l_16');
  const row = app.locator(`[data-testid=history-row][data-sweep-id="${id}"]`);
  await expect(row).toContainText(/tune: .*sim-workload/);
  await expect(row).toContainText(`${visits}/${visits}`);
  await row.getByRole('button', { name: /tune: / }).click();
  await expect(app.locator('#results-title')).toContainText(`sweep #${id}`);
  await expect(app.locator('#results-title')).toContainText('tune: ');
  // Its Export menu offers the tuning outcome (a plain sweep's does not: export.spec).
  await app.getByTestId('export-button').click();
  await expect(app.getByTestId('export-tune-csv')).toHaveText('Tuning outcome (CSV)');
  await app.getByTestId('export-button').click();
});

test('Advanced: a cap to hold, typed on the page, is held from the steady state to the end with no profiling', async ({ app }) => {
  const sim = join(process.env.CAPLAB_E2E_DIR!, 'sim');
  const cli = join(process.cwd(), 'bin', 'caplab.mjs');
  await go(app, 'tune');
  await app.getByTestId('tune-command').fill(`"${process.execPath}" '${cli}' sim-workload --workload vit_l_16 --devices 0 --state-dir "${sim}" --max-steps 800`);
  await app.getByTestId('tune-backend').selectOption('sim');
  await app.getByTestId('tune-sim-speedup').fill('100');
  await app.getByTestId('tune-sim-devices').fill('h100-sxm');
  await app.getByTestId('tune-advanced').locator('summary').click();
  await app.getByTestId('tune-hold').fill('400');
  await expect(app.getByTestId('tune-hold-note')).toHaveText(/^Holds 400 W from the job's steady state to its end: no cap is profiled/);
  await app.getByTestId('start-tune').click();
  await expect(app.getByTestId('nav-console')).toHaveAttribute('aria-current', 'page');
  await expect(app.getByTestId('sweep-status')).toContainText('done', { timeout: 120_000 });
  await expect(app.getByTestId('tune-held')).toHaveText('400 W');
  await expect(app.getByTestId('tune-note')).toHaveText(/^held 400 W: --hold 400 W: no profiling/);
  await expect(app.getByTestId('tune-share')).toContainText('0 visits');
});

test('Cancel tuning on the console ends the job and restores the limit', async ({ app }) => {
  const sim = join(process.env.CAPLAB_E2E_DIR!, 'sim');
  const cli = join(process.cwd(), 'bin', 'caplab.mjs');
  // Started through the API the page uses (startTune), a job far longer than the test.
  const { sweep_id } = await callApi<{ sweep_id: number }>(app, 'startTune', {
    argv: [process.execPath, cli, 'sim-workload', '--workload', 'resnet50', '--devices', '0', '--state-dir', sim, '--max-steps', '1000000'],
    backend: 'sim',
    sim_speedup: 20,
    sim_devices: ['h100-sxm'],
  });
  await app.goto(`${app.url().replace(/#.*$/, '')}#/console/${sweep_id}`);
  await expect(app.getByTestId('tune-stage')).toHaveAttribute('data-stage', 'visit', { timeout: 90_000 });
  await expect(app.getByTestId('tune-cap')).toHaveText(/^\d+ W$/);
  await app.getByTestId('cancel-sweep').click();
  await expect(app.getByRole('dialog')).toContainText('Cancel the tuning session?');
  await app.getByRole('dialog').getByRole('button', { name: 'Cancel tuning' }).click();
  await expect(app.getByTestId('sweep-status')).toContainText('cancelled', { timeout: 30_000 });
  await expect(app.getByTestId('finished-banner')).toContainText('Tuning session cancelled.');
  await expect(app.getByTestId('finished-banner')).toContainText(/Restored .* to \d+ W \(was \d+ W\)/);
  await expect(app.getByTestId('tune-stage')).toHaveAttribute('data-stage', 'ended');
  const { sweep } = await callApi<{ sweep: { status: string; error: string | null } }>(app, 'getSweep', { sweep_id });
  expect(sweep).toMatchObject({ status: 'cancelled', error: 'cancelled from the app' });
});
