import { describe, expect, it } from 'vitest';
import { capHull, chooseCaps, type CapPoint, type GridType } from '../../../src/core/facility/grid';
import { buildModel } from '../../../src/core/facility/model';
import { runReplica, simulate } from '../../../src/core/facility/run';
import { searchHost } from '../../../src/core/facility/host-search';
import { FacilityConfig, type FacilityConfigInput } from '../../../src/shared/facility';
import { scenario, smallTraining } from './helpers';

const LOAD = 330;
const SEED = 11;
/** Two weeks; the event on day 9 at 14:00 UTC (hours from the start), an hour of notice. */
const EVENT_H = 8 * 24 + 14;

function gridRun(over: Partial<FacilityConfigInput>) {
  const sc = scenario(over);
  const b = buildModel(sc);
  return { sc, b, r: runReplica(sc, b, LOAD, SEED, true) };
}

const flexibleJobs = smallTraining.jobs!.map((j) => ({ ...j, flexible: 0.5 }));

describe('grid response: cap choice', () => {
  it('keeps only the caps on the lower convex hull of (power shed, work lost)', () => {
    const pts: CapPoint[] = [
      { capW: 600, power: 0.95, throughput: 0.99 },
      // Above the line from 600 W to 400 W: a mix of those sheds as much for less work lost.
      { capW: 500, power: 0.9, throughput: 0.95 },
      { capW: 400, power: 0.8, throughput: 0.96 },
      { capW: 300, power: 0.7, throughput: 0.7 },
    ];
    expect(capHull(pts).map((s) => s.capW)).toEqual([600, 400, 300]);
  });

  it('is optimal against a brute-force search over every assignment of caps to the nodes of a small site', () => {
    // The cap curves of the small site's two job types (built-in profiles, caps 600-200 W) and the power and busy
    // nodes of one of its steps, scaled to 4 + 3 busy nodes so every assignment of a cap to each node can be listed.
    const b = buildModel(scenario({ grid: {} }));
    if (b.kind !== 'training' || !b.grid) throw new Error('no grid model');
    const types: GridType[] = b.grid.types;
    expect(types.every((t) => t.points.length === 5)).toBe(true);
    const run = simulate(b, LOAD, SEED, true);
    const s = Math.floor(run.it.length / 2);
    const busy = [4, 3];
    const power = run.types!.map((t, j) => (t.power[s]! / t.busy[s]!) * busy[j]!);
    // Every way to put each node at one of the measured levels (uncapped or a cap, hull or not).
    const levels = types.map((t) => [{ shed: 0, loss: 0 }, ...t.points.map((p) => ({ shed: 1 - p.power, loss: 1 - p.throughput }))]);
    const assignments: { shed: number; loss: number }[] = [{ shed: 0, loss: 0 }];
    types.forEach((_, j) => {
      const perType: { shed: number; loss: number }[] = [];
      const walk = (node: number, from: number, shed: number, loss: number) => {
        if (node === busy[j]) return void perType.push({ shed, loss });
        for (let l = from; l < levels[j]!.length; l++) walk(node + 1, l, shed + (power[j]! / busy[j]!) * levels[j]![l]!.shed, loss + levels[j]![l]!.loss);
      };
      walk(0, 0, 0, 0);
      const next = assignments.flatMap((a) => perType.map((p) => ({ shed: a.shed + p.shed, loss: a.loss + p.loss })));
      assignments.splice(0, assignments.length, ...next);
    });
    expect(assignments.length).toBe(126 * 56);
    let compared = 0;
    for (const a of assignments) {
      if (a.shed <= 0) continue;
      const c = chooseCaps(types, power, busy, a.shed);
      const shed = c.shedW.reduce((x, y) => x + y, 0);
      const loss = c.lossNodeSteps.reduce((x, y) => x + y, 0);
      // The greedy choice sheds what is asked and never loses more work than any assignment shedding as much.
      expect(shed).toBeCloseTo(a.shed, 6);
      expect(loss).toBeLessThanOrEqual(a.loss + 1e-9);
      c.shares.forEach((sh) => {
        expect(sh.every((x) => x >= -1e-12)).toBe(true);
        expect(sh.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(1 + 1e-12);
      });
      compared++;
    }
    expect(compared).toBeGreaterThan(7000);
    // A need no cap mix can meet takes every type to its deepest cap.
    const deepest = chooseCaps(types, power, busy, 1e9);
    deepest.shares.forEach((sh) => expect(sh[sh.length - 1]).toBeCloseTo(1, 12));
  });
});

describe('grid response over a simulated site', () => {
  it('meets an event the caps can meet within one step of its start plus the notice', () => {
    const { sc, r } = gridRun({ grid: { events: [{ start: EVENT_H, duration_h: 3, notice_min: 60, reduce_pct: 10 }], defer: false } });
    const e = r.grid!.events[0]!;
    expect(e.requested_w).toBeCloseTo(e.baseline_w * 0.1, 6);
    expect(e.met_share).toBe(1);
    expect(e.shortfall_mwh).toBe(0);
    expect(e.time_to_reach_min).not.toBeNull();
    expect(e.time_to_reach_min!).toBeLessThanOrEqual(60 + sc.config.step_s / 60);
    expect(e.delivered_min_w).toBeGreaterThanOrEqual(e.requested_w - 1e-3);
    // Caps lose work; nothing was paused.
    expect(Object.values(e.work_lost_node_h).reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
    expect(Object.values(e.deferred_node_h).every((x) => x === 0)).toBe(true);
  });

  it('keeps the energy balance: facility = IT x overheads + fixed; grid = facility - battery out + battery in - generator; battery in x efficiency = out + charge gained', () => {
    const overheads = { pue: 1.25, distribution_loss: 0.03, fixed_w: 20_000 };
    const { r } = gridRun({
      overheads,
      grid: { limit_mw: 0.36, events: [{ start: EVENT_H, duration_h: 3, limit_mw: 0.3 }], battery: { mw: 0.05, mwh: 0.1, efficiency: 0.85, soc_start: 0.5 }, generator: { mw: 0.01 } },
    });
    const f = r.full!;
    let itSum = 0;
    let facSum = 0;
    let gridSum = 0;
    for (let k = 0; k < f.it.length; k++) {
      expect(f.total[k]).toBeCloseTo(f.it[k]! * (1 + 0.03 + 0.25) + 20_000, 6);
      itSum += f.it[k]!;
      facSum += f.total[k]!;
      gridSum += f.grid![k]!;
    }
    const g = r.grid!;
    const bat = g.battery!;
    const stepH = 60 / 3600;
    expect(r.total.energyMWh).toBeCloseTo((facSum * stepH) / 1e6, 9);
    expect(r.it.energyMWh).toBeCloseTo((itSum * stepH) / 1e6, 9);
    expect(g.grid_energy_mwh).toBeCloseTo((gridSum * stepH) / 1e6, 9);
    expect(g.grid_energy_mwh).toBeCloseTo(r.total.energyMWh - bat.discharged_mwh + bat.charged_mwh - g.generator_mwh, 6);
    expect(bat.discharged_mwh).toBeGreaterThan(0);
    expect(bat.charged_mwh).toBeGreaterThan(0);
    // Charging and discharging each lose the square root of the round-trip efficiency.
    expect(bat.charged_mwh * Math.sqrt(0.85) - bat.discharged_mwh / Math.sqrt(0.85)).toBeCloseTo(bat.soc_end_mwh - bat.soc_start_mwh, 9);
    expect(bat.losses_mwh).toBeCloseTo(bat.charged_mwh - bat.discharged_mwh - (bat.soc_end_mwh - bat.soc_start_mwh), 12);
    expect(bat.losses_mwh).toBeGreaterThan(0);
    expect(g.generator_mwh).toBeGreaterThan(0);
  });

  it('returns exactly the deferred work after the event (the rebound), on nodes the schedule leaves free', () => {
    // Caps off: the 40 % reduction is met by pausing flexible jobs only.
    const { r } = gridRun({ jobs: flexibleJobs, grid: { events: [{ start: EVENT_H, duration_h: 2, reduce_pct: 40 }], caps: false } });
    const e = r.grid!.events[0]!;
    const deferred = Object.values(e.deferred_node_h).reduce((x, y) => x + y, 0);
    expect(deferred).toBeGreaterThan(10);
    expect(e.rebound_node_h).toBeCloseTo(deferred, 6);
    expect(e.rebound_end_h).toBeGreaterThan(e.end_h);
    expect(e.rebound_mwh).toBeGreaterThan(0);
    expect(e.jobs_delayed).toBeGreaterThan(0);
    expect(e.added_wait_mean_h).toBeGreaterThan(0);
    expect(Object.values(e.work_lost_node_h).every((x) => x === 0)).toBe(true);
    // After the event the deferred work adds to the draw: the rebound is above what the schedule alone draws then.
    const base = gridRun({ jobs: flexibleJobs }).r.full!;
    const endStep = Math.round(e.end_h * 60);
    let extra = 0;
    for (let k = endStep; k < Math.round(e.rebound_end_h * 60); k++) extra += r.full!.it[k]! - base.it[k]!;
    expect((extra / 60) * 1e-6).toBeCloseTo(e.rebound_mwh, 6);
  });

  it('holds a firm interconnection limit by caps all year and counts the hours at the limit', () => {
    const free = gridRun({ grid: {} }).r;
    const limitW = free.it.peak * 0.9;
    const { r } = gridRun({ grid: { limit_mw: limitW / 1e6 } });
    const g = r.grid!;
    expect(g.hours_at_limit).toBeGreaterThan(0);
    expect(g.grid_peak_w).toBeLessThanOrEqual(limitW + (g.hours_over_limit > 0 ? Infinity : 1e-3));
    expect(g.work_lost_share).toBeGreaterThan(0);
    expect(g.work_lost_share).toBeLessThan(0.05);
    // With no event, limit or storage the response changes nothing (up to the order of additions).
    const plain = runReplica(scenario(), buildModel(scenario()), LOAD, SEED, true);
    for (let k = 0; k < plain.full!.it.length; k += 97) expect(free.full!.grid![k]).toBeCloseTo(plain.full!.it[k]!, 4);
    expect(free.it.mean).toBeCloseTo(plain.it.mean, 4);
  });

  it('counts ramp-rule violations before storage and after', () => {
    const { r } = gridRun({ grid: { max_ramp_mw_per_min: 0.005 } });
    const g = r.grid!;
    expect(g.ramp_1min_w).toBeGreaterThan(5000);
    expect(g.ramp_violations).toBeGreaterThan(0);
    expect(g.ramp_violations).toBe(g.ramp_violations_before);
  });
});

describe('grid config', () => {
  const parse = (grid: unknown, over: Record<string, unknown> = {}) => FacilityConfig.safeParse({ ...smallTraining, ...over, grid });
  it('names the field of a bad event', () => {
    const r = parse({ events: [{ start: 1, duration_h: 1, reduce_mw: 1, limit_mw: 2 }] });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('exactly one of reduce_mw, reduce_pct or limit_mw');
    expect(parse({ events: [{ start: 1, duration_h: 1, reduce_pct: 120 }] }).success).toBe(false);
    expect(parse({ battery: { mw: 1, mwh: 2, efficiency: 1.2 } }).success).toBe(false);
    expect(parse({}, { jobs: smallTraining.jobs!.map((j) => ({ ...j, flexible: 2 })) }).success).toBe(false);
  });
  it('rejects an event outside the horizon, naming grid.events[i].start', () => {
    expect(() => buildModel(scenario({ grid: { events: [{ start: 24 * 30, duration_h: 1, reduce_pct: 10 }] } }))).toThrow(/grid\.events\[0\]\.start.*outside the simulated 14 days/);
    expect(() => buildModel(scenario({ grid: { events: [{ start: 'tomorrow', duration_h: 1, reduce_pct: 10 }] } }))).toThrow(/grid\.events\[0\]\.start.*not a date/);
  });
});

describe('interconnection search', () => {
  it('finds the largest node count a grid limit hosts at the target with the work lost under the share', () => {
    const sc = scenario({ horizon_days: 7, grid: { limit_mw: 0.35 } });
    const r = searchHost(sc, 0.5, 0.01, 0.02);
    expect(r.nodes).not.toBeNull();
    const best = r.best!;
    expect(best.work_lost_share).toBeLessThanOrEqual(0.01);
    expect(best.hours_over_limit).toBe(0);
    // Every larger size tried breaks the share or the limit; every smaller one tried fits.
    const larger = r.tries.filter((t) => t.nodes > best.nodes);
    expect(larger.length).toBeGreaterThan(0);
    for (const t of larger) expect(t.work_lost_share > 0.01 || t.hours_over_limit > 0).toBe(true);
    expect(Math.min(...larger.map((t) => t.nodes)) - best.nodes).toBeLessThanOrEqual(Math.max(1, Math.round(0.02 * best.nodes)));
    expect(() => searchHost(scenario({ grid: {} }), 0.5, 0.01)).toThrow(/grid\.limit_mw/);
  });
});
