import type { CapCost, SweepCost } from './cost';
import { sig } from './facility-format';

/**
 * One set of words and formats for the cost and carbon tables of `caplab analyze`, the Results page and the lab
 * report (the JSON and CSV keep the unrounded figures): energy in kWh, cost in the tariff's currency, kg CO2e.
 */

const fig = (v: number | null) => (v === null ? '–' : sig(v));

/** The per-cap table's headers; `units` is the workload's unit ("images"). */
export function costHeaders(cost: SweepCost, units: string | null): string[] {
  const c = cost.tariff.currency;
  const u = units ?? 'units';
  return ['cap', 'runs', 'energy kWh', `cost ${c}`, 'kg CO2e', `${c} per 1M ${u}`, `kg CO2e per 1M ${u}`];
}

export function costCells(c: CapCost): string[] {
  return [`${c.cap_w} W`, String(c.runs), fig(c.energy_j / 3.6e6), fig(c.cost), fig(c.co2e_kg), fig(c.cost_per_million_units), fig(c.co2e_kg_per_million_units)];
}

/** "100 EUR/MWh, 400 g CO2e/kWh" (a CSV by its file name; a figure not given says so). */
export function tariffText(cost: SweepCost): string {
  const t = cost.tariff;
  const price = t.price_csv ? `price from ${t.price_csv}` : t.price_per_mwh !== null ? `${t.price_per_mwh} ${t.currency}/MWh` : 'no price given';
  const carbon = t.carbon_csv ? `grid intensity from ${t.carbon_csv}` : t.carbon_g_per_kwh !== null ? `${t.carbon_g_per_kwh} g CO2e/kWh` : 'no grid intensity given';
  return `${price}, ${carbon}`;
}

/** "sweep total: 12 runs, 0.05 kWh, 0.005 EUR, 0.02 kg CO2e". */
export function costTotalText(cost: SweepCost): string {
  const t = cost.total;
  return `sweep total: ${t.runs} run${t.runs === 1 ? '' : 's'}, ${fig(t.energy_j / 3.6e6)} kWh, ${fig(t.cost)} ${cost.tariff.currency}, ${fig(t.co2e_kg)} kg CO2e`;
}

/** What the figures are of, in one sentence (below every cost table). */
export function costBasisText(cost: SweepCost): string {
  return `Priced: ${cost.energy_basis}; ${cost.method}. Per 1M units: the cap's counted runs (those in its statistics), total over total.`;
}
