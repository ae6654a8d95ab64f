// Cost and carbon of a sweep under a tariff, with numbers checked by hand: constant power so the node energy is
// power x window, and tariffs whose window means are whole numbers.
import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../../src/core/analysis/analyze';
import { sweepCost } from '../../../src/core/analysis/cost';
import { windowMean } from '../../../src/core/facility/overheads';
import { CostTariff, SweepCost } from '../../../src/shared/cost';
import type { AnalysisRunInput } from '../../../src/shared/analysis';
import { powerSeries } from './synth';

const T0 = Date.parse('2026-01-01T00:59:10Z') / 1000;

/** A run at `cap` W: the GPU draws `cap` W for a 100 s window starting `offset` s after T0 and does `units` units. */
function run(run_id: number, cap: number, repetition: number, offset: number, units: number): AnalysisRunInput {
  const start = T0 + offset;
  const end = start + 100;
  const steps = [];
  for (let t = start - 20 + 1; t <= end; t++) steps.push({ t, units: units / 100, dt: 1 });
  return {
    run_id,
    workload: 'vit',
    device_model: 'H100 SXM',
    cap_w: cap,
    repetition,
    started_at: start - 20,
    window: { start, end },
    units: 'images',
    units_in_window: units,
    steps,
    devices: [{ device_id: 'gpu0', samples: powerSeries(() => cap, start - 20, end, 0.1) }],
  };
}

// Node energy per run = (cap + 60 W overhead) x 100 s: 300 W -> 36,000 J = 0.01 kWh; 540 W -> 60,000 J.
const runs = [run(1, 300, 1, 0, 1000), run(2, 300, 2, 200, 1000), run(3, 480, 1, 400, 1500), run(4, 480, 2, 600, 1500)];
const analysis = analyzeSweep({ runs }, { overhead_w: 60 });

describe('sweepCost with constant rates', () => {
  const c = SweepCost.parse(sweepCost(analysis, CostTariff.parse({ price_per_mwh: 100, carbon_g_per_kwh: 400, currency: 'EUR' })));
  it('prices each run’s node energy: 36,000 J at 100/MWh is 0.001, at 400 g/kWh 0.004 kg', () => {
    const r1 = c.runs.find((r) => r.run_id === 1)!;
    expect(r1.energy_j).toBeCloseTo(36_000, 6);
    expect(r1.cost).toBeCloseTo(0.001, 12);
    expect(r1.co2e_kg).toBeCloseTo(0.004, 12);
    expect(r1).toMatchObject({ price_per_mwh: 100, carbon_g_per_kwh: 400, counted: true, cap_w: 300 });
    expect(c.tariff).toEqual({ price_per_mwh: 100, price_csv: null, carbon_g_per_kwh: 400, carbon_csv: null, currency: 'EUR' });
  });
  it('gives per cap the cost and carbon per 1,000,000 units, and the sweep total', () => {
    const [c300, c480] = c.groups[0]!.caps;
    // 300 W: 2 x 0.001 over 2 x 1000 units = 1.0 per M units; 2 x 0.004 kg / 2000 = 4 kg per M units.
    expect(c300).toMatchObject({ cap_w: 300, runs: 2, counted_runs: 2, units: 2000 });
    expect(c300!.cost_per_million_units).toBeCloseTo(1, 9);
    expect(c300!.co2e_kg_per_million_units).toBeCloseTo(4, 9);
    // 480 W: 54,000 J per run = 0.0015 per run over 1500 units -> 1.0 per M units; 0.006 kg -> 4 kg per M units.
    expect(c480!.cost).toBeCloseTo(0.003, 12);
    expect(c480!.cost_per_million_units).toBeCloseTo(1, 9);
    // Total: 2 x 36,000 + 2 x 54,000 J = 180,000 J = 0.05 kWh -> 0.005 and 0.02 kg.
    expect(c.total.runs).toBe(4);
    expect(c.total.energy_j).toBeCloseTo(180_000, 6);
    expect(c.total.cost).toBeCloseTo(0.005, 12);
    expect(c.total.co2e_kg).toBeCloseTo(0.02, 12);
    expect(c.energy_basis).toMatch(/node energy .*60 W node overhead/);
  });
  it('leaves a figure the tariff does not give null, not 0', () => {
    const only = sweepCost(analysis, CostTariff.parse({ carbon_g_per_kwh: 250 }));
    expect(only.total.cost).toBeNull();
    expect(only.groups[0]!.caps[0]!.cost_per_million_units).toBeNull();
    expect(only.total.co2e_kg).toBeCloseTo(0.05 * 250 / 1000, 12);
  });
  it('refuses a tariff with neither a price nor an intensity', () => {
    expect(CostTariff.safeParse({ currency: 'USD' }).success).toBe(false);
    expect(CostTariff.safeParse({ price_per_mwh: -1 }).success).toBe(false);
  });
  it('costs runs left out of the statistics but not their units per million, and says which runs it could not cost', () => {
    const failed = analyzeSweep({ runs: [...runs, { ...run(5, 300, 3, 800, 1000), devices: [] }] }, { overhead_w: 60 });
    const k = sweepCost(failed, CostTariff.parse({ price_per_mwh: 100 }));
    expect(k.runs.map((r) => r.run_id)).not.toContain(5);
    expect(k.notes.join()).toMatch(/#5 had no node energy/);
    expect(k.groups[0]!.caps[0]!.cost_per_million_units).toBeCloseTo(1, 9);
  });
});

describe('sweepCost with CSV rates (the facility planner’s year-looped series)', () => {
  // Prices of a past year: 50 until 01:00 on 1 January, 150 from then until 02:00, 20 after; intensity likewise.
  const at = (iso: string) => Date.parse(iso);
  const price = { t_ms: [at('2024-01-01T00:00:00Z'), at('2024-01-01T01:00:00Z'), at('2024-01-01T02:00:00Z')], value: [50, 150, 20] };
  const carbon = { t_ms: [at('2024-01-01T00:00:00Z'), at('2024-01-01T01:00:00Z')], value: [300, 500] };
  const c = sweepCost(analysis, CostTariff.parse({ price_csv: 'prices.csv', carbon_csv: 'carbon.csv' }), { price, carbon });
  it('averages the rate over each window: run 1 spans 00:59:10-01:00:50, half at 50 and half at 150', () => {
    const r1 = c.runs.find((r) => r.run_id === 1)!;
    expect(r1.price_per_mwh).toBeCloseTo(100, 9);
    expect(r1.carbon_g_per_kwh).toBeCloseTo(400, 9);
    expect(r1.cost).toBeCloseTo(0.001, 12);
    // Run 2 (01:02:30-01:04:10) is all at 150 and 500.
    const r2 = c.runs.find((r) => r.run_id === 2)!;
    expect(r2.price_per_mwh).toBe(150);
    expect(r2.co2e_kg).toBeCloseTo(0.01 * 500 / 1000, 12);
    expect(c.method).toMatch(/spread evenly/);
    expect(c.tariff).toMatchObject({ price_csv: 'prices.csv', price_per_mwh: null });
  });
  it('windowMean wraps the year: before the first reading the year’s last holds', () => {
    // A non-leap year's readings (a leap year's 31 December falls outside a 365-day year, as in perStep).
    const s = { t_ms: [at('2025-01-01T01:00:00Z'), at('2025-12-31T23:00:00Z')], value: [100, 10] };
    // 00:30-01:30 on 1 January 2027: 30 min at 10 (last year's last reading), 30 min at 100.
    expect(windowMean(s, at('2027-01-01T00:30:00Z'), at('2027-01-01T01:30:00Z'))).toBeCloseTo(55, 9);
    // Across New Year: 22:30-23:30 on 31 December 2026 at 100 then 10.
    expect(windowMean(s, at('2026-12-31T22:30:00Z'), at('2026-12-31T23:30:00Z'))).toBeCloseTo(55, 9);
    expect(windowMean(s, at('2026-06-01T00:00:00Z'), at('2026-06-01T00:00:00Z'))).toBe(100);
  });
});
