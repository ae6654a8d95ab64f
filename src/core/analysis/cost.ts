// Cost and carbon of a sweep's measured energy under a tariff (issue #29): per run, per cap (with the figure a user
// compares across caps, cost and kg CO2e per 1,000,000 work units) and in total. The energy is each run's node
// energy over its measurement window, the energy its units/J counts (GPUs + measured CPU, else + the node overhead).
import type { AnalysisResult, RunAnalysis } from '../../shared/analysis';
import type { CapCost, CostTariff, RunCost, SweepCost } from '../../shared/cost';
import { windowMean, type YearSeries } from '../facility/overheads';

/** The tariff's CSVs read as the facility planner reads them (ScenarioInput.series): hourly, looped yearly. */
export interface TariffSeries {
  price?: YearSeries;
  carbon?: YearSeries;
}

const J_PER_MWH = 3.6e9;
const J_PER_KWH = 3.6e6;

/** The rate over a run's window: the CSV's time-weighted mean where there is one, else the constant, else null. */
function rateOver(series: YearSeries | undefined, flat: number | undefined, start: number, end: number): number | null {
  if (series) return windowMean(series, start * 1000, end * 1000);
  return flat ?? null;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Energy, cost and carbon summed over runs; cost / carbon null where the tariff has no price / intensity. */
function totals(runs: readonly RunCost[], priced: { cost: boolean; carbon: boolean }) {
  return {
    energy_j: sum(runs.map((r) => r.energy_j)),
    cost: priced.cost ? sum(runs.map((r) => r.cost ?? 0)) : null,
    co2e_kg: priced.carbon ? sum(runs.map((r) => r.co2e_kg ?? 0)) : null,
  };
}

/**
 * The sweep's cost and carbon. `result` is the analysis (its runs' node energies and windows, its caps' counted runs);
 * `series` the tariff's CSVs, read by the caller (a CSV replaces the constant, as in the planner).
 */
export function sweepCost(result: Pick<AnalysisResult, 'runs' | 'groups'>, tariff: CostTariff, series: TariffSeries = {}): SweepCost {
  const priced = { cost: series.price !== undefined || tariff.price_per_mwh !== undefined, carbon: series.carbon !== undefined || tariff.carbon_g_per_kwh !== undefined };
  const notes: string[] = [];
  const counted = new Set<number>();
  for (const g of result.groups) {
    for (const c of g.caps) {
      const out = new Set(c.excluded_runs.map((x) => x.run_id));
      for (const id of c.run_ids) if (!out.has(id)) counted.add(id);
    }
  }
  const costed = (r: RunAnalysis): RunCost | null => {
    const e = r.node?.energy_j;
    if (!r.window || e == null) return null;
    const price = priced.cost ? rateOver(series.price, tariff.price_per_mwh, r.window.start, r.window.end) : null;
    const carbon = priced.carbon ? rateOver(series.carbon, tariff.carbon_g_per_kwh, r.window.start, r.window.end) : null;
    return {
      run_id: r.run_id,
      workload: r.workload,
      device_model: r.device_model,
      cap_w: r.cap_w,
      repetition: r.repetition,
      start: r.window.start,
      end: r.window.end,
      energy_j: e,
      cost: price === null ? null : (e / J_PER_MWH) * price,
      // g/kWh x kWh = g; / 1000 = kg.
      co2e_kg: carbon === null ? null : ((e / J_PER_KWH) * carbon) / 1000,
      price_per_mwh: price,
      carbon_g_per_kwh: carbon,
      counted: r.usable && counted.has(r.run_id),
    };
  };
  const runs: RunCost[] = [];
  const missing: number[] = [];
  for (const r of result.runs) {
    const c = costed(r);
    if (c) runs.push(c);
    else if (r.window) missing.push(r.run_id);
  }
  if (missing.length) notes.push(`run${missing.length > 1 ? 's' : ''} ${missing.map((id) => `#${id}`).join(', ')} had no node energy in the window: not costed`);
  const perMillion = (x: number | null, units: number | null) => (x === null || !units ? null : (x / units) * 1e6);
  const unitsOf = new Map(result.runs.map((r) => [r.run_id, r.units_total]));
  const groups = result.groups.map((g) => {
    const mine = runs.filter((r) => r.workload === g.workload && r.device_model === g.device_model);
    const caps = g.caps.map((c): CapCost => {
      const at = mine.filter((r) => r.cap_w === c.cap_w);
      const used = at.filter((r) => r.counted);
      const units = used.length ? sum(used.map((r) => unitsOf.get(r.run_id) ?? 0)) : null;
      const t = totals(used, priced);
      return { cap_w: c.cap_w, runs: at.length, ...totals(at, priced), counted_runs: used.length, units, cost_per_million_units: perMillion(t.cost, units), co2e_kg_per_million_units: perMillion(t.co2e_kg, units) };
    });
    return { workload: g.workload, device_model: g.device_model, units: g.units, caps, ...totals(mine, priced) };
  });
  const bases = [...new Set(result.groups.map((g) => g.energy_basis).filter(Boolean))];
  const csv = series.price || series.carbon;
  return {
    tariff: {
      price_per_mwh: tariff.price_per_mwh ?? null,
      price_csv: tariff.price_csv ?? null,
      carbon_g_per_kwh: tariff.carbon_g_per_kwh ?? null,
      carbon_csv: tariff.carbon_csv ?? null,
      currency: tariff.currency,
    },
    energy_basis: `node energy over each run's measurement window${bases.length ? ` (${bases.join('; ')})` : ''}`,
    method: csv
      ? "CSV rates (sample-and-hold, looped yearly as the facility planner reads them) averaged over each run's window, weighted by time: the run's energy is taken as spread evenly over its window"
      : 'constant rates: energy x price and energy x grid intensity',
    runs,
    groups,
    total: { runs: runs.length, ...totals(runs, priced) },
    notes,
  };
}
