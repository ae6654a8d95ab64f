import { test, expect, go, callApi } from './fixtures';

test('history: search sweeps and delete one after confirming', async ({ app }) => {
  // Two short sweeps through the API the page itself uses (same origin, its bearer token).
  const names = ['history alpha', 'history beta'];
  for (const name of names) {
    const plan = { name, backend: 'sim', workloads: [{ id: 'resnet50' }], caps: [300], warmup: { seconds: 5 }, window: { seconds: 5 }, cooldown_s: 0, sim: { speedup: 100, devices: ['h100-sxm'] } };
    const r = await callApi<{ sweep_id: number }>(app, 'startSweep', { plan });
    expect(r.sweep_id).toBeGreaterThan(0);
    await expect
      .poll(async () => (await callApi<{ sweep: { status: string } }>(app, 'getSweep', { sweep_id: r.sweep_id })).sweep.status, { timeout: 60_000 })
      .not.toBe('running');
  }
  await go(app, 'history');
  await app.getByTestId('history-search').fill('history');
  await expect(app.getByTestId('history-row')).toHaveCount(2);
  await app.getByTestId('history-search').fill('history beta');
  await expect(app.getByTestId('history-row')).toHaveCount(1);
  const row = app.getByTestId('history-row').first();
  await expect(row).toContainText('history beta');
  await expect(row).toContainText('simulated');

  // Keep: nothing is deleted.
  await row.getByRole('button', { name: 'Delete' }).click();
  await app.getByRole('dialog').getByRole('button', { name: 'Keep' }).click();
  await expect(app.getByTestId('history-row')).toHaveCount(1);

  // Delete, confirmed: gone, also after a fresh search.
  await row.getByRole('button', { name: 'Delete' }).click();
  await expect(app.getByRole('dialog')).toContainText('cannot be undone');
  await app.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(app.getByTestId('history-row')).toHaveCount(0);
  await app.getByTestId('history-search').fill('history');
  await expect(app.getByTestId('history-row')).toHaveCount(1);
  await expect(app.getByTestId('history-row').first()).toContainText('history alpha');
});

test('keyboard shortcuts switch pages and the theme persists', async ({ app }) => {
  await go(app, 'devices');
  await app.locator('body').press('2');
  await expect(app.getByTestId('nav-designer')).toHaveAttribute('aria-current', 'page');
  await app.locator('body').press('5');
  await expect(app.getByTestId('nav-history')).toHaveAttribute('aria-current', 'page');
  const before = await app.locator('html').getAttribute('data-theme');
  await app.locator('body').press('t');
  const after = before === 'dark' ? 'light' : 'dark';
  await expect(app.locator('html')).toHaveAttribute('data-theme', after);
  await app.reload();
  await expect(app.locator('html')).toHaveAttribute('data-theme', after);
  await app.locator('body').press('t');
  await expect(app.locator('html')).toHaveAttribute('data-theme', before!);
  await app.locator('body').press('?');
  await expect(app.getByRole('dialog')).toContainText('Keyboard shortcuts');
  await app.keyboard.press('Escape');
  await expect(app.getByRole('dialog')).toHaveCount(0);
});
