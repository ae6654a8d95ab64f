import { test, expect, callApi } from './fixtures';
import { quickPlan, startSweep, waitEnded } from './helpers';
import type { AnalysisResult } from '../../src/shared/analysis';

test('results: a price and a grid intensity add the Cost and carbon card with the engine’s figures, kept across sweeps', async ({ app }) => {
  const a = await startSweep(app, quickPlan('e2e cost H100', [300, 500], 1, { cooldown_s: 0 }));
  expect(await waitEnded(app, a)).toBe('done');
  const b = await startSweep(app, quickPlan('e2e cost second', [300, 500], 1, { cooldown_s: 0 }));
  expect(await waitEnded(app, b)).toBe('done');
  await app.goto(`${new URL(app.url()).origin}${new URL(app.url()).search}#/results/${a}`);
  await expect(app.getByTestId('best-cap')).toHaveText(/\d+ W/);
  // Empty by default: nothing priced, no card.
  await expect(app.getByTestId('cost-card')).toHaveCount(0);

  await app.getByTestId('tariff-price').fill('100');
  await app.getByTestId('tariff-currency').fill('EUR');
  await app.getByTestId('tariff-carbon').fill('400');
  const card = app.getByTestId('cost-card');
  await expect(card).toContainText('100 EUR/MWh, 400 g CO2e/kWh');
  await expect(card.locator('thead')).toContainText('EUR per 1M images');

  // The card shows what analyzeSweep gives for the same tariff (3 significant figures).
  const want = await callApi<AnalysisResult>(app, 'analyzeSweep', { sweep_id: a, tariff: { price_per_mwh: 100, carbon_g_per_kwh: 400, currency: 'EUR' } });
  const sig = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(Math.min(6, 2 - Math.floor(Math.log10(Math.abs(v))))));
  for (const c of want.cost!.groups[0]!.caps) {
    const cells = card.locator(`tr[data-cap="${c.cap_w}"] td`);
    await expect(cells.nth(3)).toHaveText(sig(c.cost!));
    await expect(cells.nth(4)).toHaveText(sig(c.co2e_kg!));
    await expect(cells.nth(5)).toHaveText(sig(c.cost_per_million_units!));
  }
  await expect(app.getByTestId('cost-total')).toContainText(`sweep total: ${want.cost!.total.runs} runs`);

  // A bad figure is said at its field, and the other figure still prices.
  await app.getByTestId('tariff-price').fill('-3');
  await expect(app.getByTestId('tariff-price-error')).toHaveText('Price must be a number ≥ 0');
  await expect(card).toContainText('no price given, 400 g CO2e/kWh');

  // The tariff stays when another sweep is shown.
  await app.getByTestId('tariff-price').fill('100');
  await app.getByTestId('results-sweep').selectOption(String(b));
  await expect(app.locator('#results-title')).toContainText(`sweep #${b}`);
  await expect(app.getByTestId('cost-card')).toContainText('100 EUR/MWh, 400 g CO2e/kWh');
  await app.getByTestId('tariff-price').fill('');
  await app.getByTestId('tariff-carbon').fill('');
  await expect(app.getByTestId('cost-card')).toHaveCount(0);
});
