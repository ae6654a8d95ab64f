// Ramp smoothing (grid.smooth_ramps): the small site's real simulated year-slice, its grid draw held to the ramp rule
// by the battery and by caps on rises, checked step by step on the full-resolution series, with the energy balanced.
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/core/facility/model';
import { runReplica } from '../../../src/core/facility/run';
import type { FacilityConfigInput } from '../../../src/shared/facility';
import { GRID_HEADERS, gridCells } from '../../../src/shared/facility-format';
import { scenario } from './helpers';

const LOAD = 330;
const SEED = 11;
const RULE_W = 10_000; // 10 kW per minute on a ~0.3 MW site: job starts and ends break it

function run(grid: NonNullable<FacilityConfigInput['grid']>) {
  const sc = scenario({ horizon_days: 3, grid: { max_ramp_mw_per_min: RULE_W / 1e6, ...grid } });
  const r = runReplica(sc, buildModel(sc), LOAD, SEED, true);
  return { g: r.grid!, full: r.full! };
}

/** Steps whose 1-min change rises (falls) past the rule, and steps breaking the 1-min or 15-min rule (1-min steps). */
function breaks(x: Float64Array) {
  let up = 0;
  let down = 0;
  let any = 0;
  for (let k = 1; k < x.length; k++) {
    const d = x[k]! - x[k - 1]!;
    if (d > RULE_W) up++;
    if (d < -RULE_W) down++;
    if (Math.abs(d) > RULE_W || (k >= 15 && Math.abs(x[k]! - x[k - 15]!) > 15 * RULE_W)) any++;
  }
  return { up, down, any };
}

const sum = (x: Float64Array) => x.reduce((a, b) => a + b, 0);

describe('ramp smoothing', () => {
  const plain = run({});
  const battery = { mw: 0.2, mwh: 0.4, efficiency: 0.9, soc_start: 0.5 };

  it('without smoothing the site breaks the rule (the case smoothing is for)', () => {
    const b = breaks(plain.full.grid!);
    expect(b.up).toBeGreaterThan(20);
    expect(b.down).toBeGreaterThan(20);
    expect(plain.g.ramp_violations).toBe(b.any);
    expect(plain.g.ramp_smoothing).toBeUndefined();
  });

  it('a battery holds every 1-min and 15-min change of the grid draw to the rule; IT power is untouched', () => {
    const s = run({ battery, smooth_ramps: ['battery'] });
    const grid = s.full.grid!;
    expect(breaks(grid)).toEqual({ up: 0, down: 0, any: 0 });
    let max15 = 0;
    for (let k = 15; k < grid.length; k++) max15 = Math.max(max15, Math.abs(grid[k]! - grid[k - 15]!));
    expect(max15).toBeLessThanOrEqual(15 * RULE_W);
    expect(s.g.ramp_violations).toBe(0);
    expect(s.g.ramp_smoothing).toMatchObject({ by: ['battery'], violations_unsmoothed: expect.any(Number) });
    // The unsmoothed figure is the same site with the same battery (held half full between events), not smoothing.
    expect(s.g.ramp_smoothing!.violations_unsmoothed).toBe(run({ battery: { ...battery, standby_soc: 0.5 } }).g.ramp_violations);
    expect(s.g.ramp_smoothing!.violations_unsmoothed).toBeGreaterThan(20);
    expect(s.g.ramp_smoothing!.ramp_1min_unsmoothed_w!).toBeGreaterThan(RULE_W);
    expect(s.g.ramp_1min_w!).toBeLessThanOrEqual(RULE_W);
    expect(Object.values(s.g.ramp_smoothing!.work_lost_node_h).every((v) => v === 0)).toBe(true);
    expect(s.full.it).toEqual(plain.full.it);
  });

  it('keeps the energy balance: grid - site = charged - discharged, and the state of charge moves by in x eta - out / eta', () => {
    const s = run({ battery, smooth_ramps: ['battery'] });
    const bat = s.g.battery!;
    const dtH = 60 / 3600;
    expect(((sum(s.full.grid!) - sum(s.full.total)) * dtH) / 1e6).toBeCloseTo(bat.charged_mwh - bat.discharged_mwh, 9);
    const eta = Math.sqrt(battery.efficiency);
    expect(bat.soc_end_mwh).toBeCloseTo(bat.soc_start_mwh + bat.charged_mwh * eta - bat.discharged_mwh / eta, 9);
    expect(bat.losses_mwh).toBeCloseTo(bat.charged_mwh * (1 - eta) + bat.discharged_mwh * (1 / eta - 1), 9);
    expect(bat.losses_mwh).toBeGreaterThan(0);
    expect(s.g.ramp_smoothing!.battery_mwh).toBeGreaterThan(0);
  });

  it('caps alone hold every rise to the rule at a cost in work (falls stay: caps cannot hold power up)', () => {
    const s = run({ smooth_ramps: ['caps'] });
    const b = breaks(s.full.grid!);
    expect(b.up).toBe(0);
    expect(b.down).toBeGreaterThan(0);
    expect(s.g.ramp_violations).toBeLessThan(plain.g.ramp_violations);
    const lost = Object.values(s.g.ramp_smoothing!.work_lost_node_h).reduce((a, v) => a + v, 0);
    expect(lost).toBeGreaterThan(0);
    // Lost work is the year's (no event here) and the IT energy it did not draw.
    expect(Object.values(s.g.work_lost_node_h).reduce((a, v) => a + v, 0)).toBeCloseTo(lost, 9);
    expect(sum(s.full.it)).toBeLessThan(sum(plain.full.it));
    // The table (CLI, page, report) says what smoothing left and what it cost.
    const cell = gridCells(s.g)[GRID_HEADERS.indexOf('ramp violations (before → after)')];
    expect(cell).toBe(`${s.g.ramp_violations_before} → ${s.g.ramp_violations} (unsmoothed ${s.g.ramp_smoothing!.violations_unsmoothed}; smoothed by caps, ${lost.toFixed(1)} node-h lost)`);
    expect(s.full.it.filter((w, k) => w > plain.full.it[k]! + 1e-6)).toHaveLength(0);
  });

  it('never holds the draw above an event limit: the event is still met, and only the limit makes falls past the rule', () => {
    const event = { start: 36, notice_min: 30, duration_h: 2, reduce_pct: 20 };
    const s = run({ battery, smooth_ramps: ['battery', 'caps'], events: [event] });
    const e = s.g.events[0]!;
    expect(e.met_share).toBe(1);
    expect(e.time_to_reach_min).toBe(30);
    const grid = s.full.grid!;
    const [due, end] = [Math.round((e.due_h * 3600) / 60), Math.round((e.end_h * 3600) / 60)];
    for (let k = due; k < end; k++) expect(grid[k]!).toBeLessThanOrEqual(e.limit_w + 1e-6);
    // A fall past the rule only where the limit binds (the draw at the limit, in the event window).
    for (let k = 1; k < grid.length; k++) if (grid[k]! - grid[k - 1]! < -RULE_W) expect(k >= due && k < end && Math.abs(grid[k]! - e.limit_w) < 1e-3).toBe(true);
    expect(breaks(grid).up).toBe(0);
    expect(s.g.ramp_violations).toBeLessThan(s.g.ramp_smoothing!.violations_unsmoothed / 10);
  });
});
