// The newcomer's path through every page: live traces, the backend picker, help, About, notifications, and no page
// error or failed request during a whole sweep at both window sizes and in both themes.
import { test, expect, go, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded, watchProblems } from './helpers';

const PAGES = ['devices', 'designer', 'console', 'results', 'history'] as const;

for (const size of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test(`no page error or failed request during a whole sweep at ${size.width}x${size.height}, dark and light`, async ({ app }) => {
    await app.setViewportSize(size);
    const problems = watchProblems(app);
    await app.reload();
    const id = await startSweep(app, quickPlan(`e2e tour ${size.width}`, [300, 450, 600], 1));
    for (const theme of ['dark', 'light']) {
      if ((await app.locator('html').getAttribute('data-theme')) !== theme) await app.getByTestId('theme-toggle').click();
      await expect(app.locator('html')).toHaveAttribute('data-theme', theme);
      for (const p of PAGES) {
        await go(app, p);
        await app.waitForTimeout(700);
      }
    }
    expect(await waitEnded(app, id)).toBe('done');
    await go(app, 'console');
    await expect(app.getByTestId('runs-done')).toHaveText('3 of 3 runs done');
    await app.goto(`${new URL(app.url()).origin}${new URL(app.url()).search}#/results/${id}`);
    await expect(app.getByTestId('best-cap')).toHaveText(/\d+ W/);
    await app.getByTestId('cap-table').locator('tbody tr').first().getByRole('button', { name: 'r1' }).click();
    await expect(app.getByTestId('run-drilldown').locator('.scatterlayer .trace').first()).toBeVisible();
    await go(app, 'history');
    await go(app, 'console');
    await app.waitForTimeout(1000);
    if ((await app.locator('html').getAttribute('data-theme')) !== 'dark') await app.getByTestId('theme-toggle').click();
    expect(problems).toEqual([]);
  });
}

test('live traces: gaps break the line, the time axis says simulated, the terminal shows the workload\'s own output', async ({ app }) => {
  const problems = watchProblems(app);
  const id = await startSweep(app, quickPlan('e2e traces', [300, 400, 500], 1, { cooldown_s: 20 }));
  await go(app, 'console');
  await expect(app.getByTestId('terminal')).toContainText('caplab started vit_l_16', { timeout: 30_000 });
  expect(await waitEnded(app, id)).toBe('done');
  const traces = app.getByTestId('live-traces');
  await expect(traces).toContainText('simulated time since the sweep started (s)');
  // Throughput has no steps during the 20 s cool-downs: three runs, three separate stretches of line (the canvas
  // lifts its pen at each gap and counts the stretches it drew).
  await expect.poll(async () => Number(await traces.getAttribute('data-throughput-segments')), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);

  const term = app.getByTestId('terminal');
  await expect(term).not.toContainText('@caplab');
  await expect(app.getByTestId('protocol-hidden')).toContainText(/\d+ hidden/);
  await app.getByTestId('show-protocol').check();
  await expect(term).toContainText('@caplab {"ev":');
  await app.getByTestId('show-protocol').uncheck();
  await expect(term).not.toContainText('@caplab');
  // No favicon request fails (the icon is inline), and leaving the console raises nothing.
  await go(app, 'devices');
  await app.waitForTimeout(500);
  expect(problems).toEqual([]);
});

test('picking a backend that fails does not break live readings of the others', async ({ app }) => {
  await go(app, 'devices');
  await app.getByTestId('backend-select').selectOption('nvml');
  await expect(app.getByTestId('backend-line')).toContainText(/nvml.*(libnvidia|NVML)/i);
  await app.getByTestId('backend-select').selectOption('sim');
  await expect(app.getByTestId('device-card').first()).toBeVisible();
  await expect(app.getByTestId('gauge-source')).toHaveText(/^Idle readings, once a second/, { timeout: 20_000 });
  const r = await callApi<{ backend: string; samples: unknown[] }>(app, 'sampleDevices', { backend: 'sim' });
  expect(r.samples.length).toBeGreaterThan(0);
  await app.getByTestId('backend-select').selectOption('auto');
  await expect(app.getByTestId('gauge-source')).toHaveText(/^Idle readings, once a second/, { timeout: 20_000 });
});

test('every page links to its section of the user guide and has a first-run hint; About names version, commit and data folder', async ({ app }) => {
  const sections: Record<string, string> = { devices: 'look-at-your-devices', designer: 'design-a-sweep', console: 'run-it', results: 'read-the-answer', history: 'read-the-answer' };
  for (const p of PAGES) {
    await go(app, p);
    await app.getByTestId('guide-link').click();
    const guide = app.getByTestId('guide');
    await expect(guide).toHaveAttribute('data-section', sections[p]!);
    await expect(guide.locator(`[id="guide-${sections[p]}"]`)).toBeInViewport();
    await app.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await expect(app.getByTestId('page-hint')).toContainText('New here?');
  }
  await app.getByTestId('dismiss-hint').click();
  await expect(app.getByTestId('page-hint')).toHaveCount(0);
  await app.reload();
  await expect(app.getByTestId('page-help')).toBeVisible();
  await expect(app.getByTestId('page-hint')).toHaveCount(0);
  await go(app, 'devices');
  await expect(app.getByTestId('page-hint')).toBeVisible();

  await app.getByTestId('open-about').click();
  await expect(app.getByTestId('about-version')).toHaveText('0.1.0');
  await expect(app.getByTestId('about-commit')).toHaveText(/^[0-9a-f]{12}(\+dirty)?$/);
  await expect(app.getByTestId('about-data-dir')).toHaveText(`${process.env.CAPLAB_E2E_DIR}/data`);
  await expect(app.getByTestId('about-db')).toHaveText(`${process.env.CAPLAB_E2E_DIR}/lab.db`);
  await app.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
});

test('an opt-in notification when a sweep ends', async ({ app, context }) => {
  await context.grantPermissions(['notifications']);
  // Record what the page hands to the Notification API (the real one still runs).
  await app.addInitScript(`(() => {
    const Real = window.Notification;
    window.notified = [];
    window.Notification = class extends Real {
      constructor(title, opts) { super(title, opts); window.notified.push({ title, body: opts && opts.body }); }
    };
  })()`);
  await app.reload();
  const first = await startSweep(app, quickPlan('e2e quiet', [300], 1, { cooldown_s: 0 }));
  await go(app, 'console');
  await expect(app.getByTestId('notify-toggle')).not.toBeChecked();
  expect(await waitEnded(app, first)).toBe('done');
  await app.waitForTimeout(500);
  expect(await app.evaluate<unknown[]>('window.notified')).toEqual([]);

  const id = await startSweep(app, quickPlan('e2e notify', [300, 400], 1, { cooldown_s: 0 }));
  await app.getByTestId('notify-toggle').click();
  await expect(app.getByTestId('notify-toggle')).toBeChecked();
  expect(await waitEnded(app, id)).toBe('done');
  await expect.poll(() => app.evaluate<{ title: string; body: string }[]>('window.notified')).toEqual([{ title: `CapLab: sweep #${id} done`, body: expect.stringContaining('e2e notify') }]);
});
