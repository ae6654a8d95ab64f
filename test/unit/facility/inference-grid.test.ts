// The inference grid response (fewer instances): a small two-service site under a demand-response event, checked
// against the same run without the grid and, step by step, against every choice of instances to stop.
import { describe, expect, it } from 'vitest';
import { powerAt, simulateInference } from '../../../src/core/facility/inference';
import { buildModel } from '../../../src/core/facility/model';
import { runReplica } from '../../../src/core/facility/run';
import type { FacilityConfigInput } from '../../../src/shared/facility';
import { EVENT_HEADERS, eventCells } from '../../../src/shared/facility-format';
import { scenario } from './helpers';

const DAY = [0.25, 0.2, 0.17, 0.15, 0.15, 0.18, 0.28, 0.45, 0.65, 0.8, 0.9, 0.95, 0.97, 1.0, 0.98, 0.95, 0.9, 0.85, 0.78, 0.7, 0.6, 0.5, 0.4, 0.32];
const site: FacilityConfigInput = {
  mode: 'inference',
  seed: 5,
  start: '2025-01-06T00:00:00Z',
  horizon_days: 3,
  step_s: 60,
  nodes: 100,
  idle_w: 420,
  rated_w: 3520,
  targets: [0.5],
  services: [
    { name: 'chat', peak_rps: 300, day: DAY, noise_sigma: 0.1, rate_max: 6, nodes_per_instance: 1, max_instances: 100, power: { builtin: 'llama3-70b-serving' } },
    // Two-node instances whose power hardly depends on their rate: stopping one sheds more W per request lost.
    { name: 'batch', peak_rps: 40, day: DAY, noise_sigma: 0.1, rate_max: 4, nodes_per_instance: 2, max_instances: 20, power: { points: [[0, 2200], [4, 2900]] } },
  ],
};
const LOAD = 1;
const SEED = 9;
const event = { start: 36, notice_min: 15, duration_h: 2, reduce_pct: 20 };

function run(over: Partial<FacilityConfigInput>) {
  const sc = scenario(over, site);
  const b = buildModel(sc);
  return { b, r: runReplica(sc, b, LOAD, SEED, true) };
}

describe('inference under a grid event: fewer instances, the incomplete requests counted', () => {
  const plain = run({});
  const withEvent = run({ grid: { events: [event] } });
  const g = withEvent.r.grid!;
  const e = g.events[0]!;
  const due = Math.round((e.due_h * 3600) / 60);
  const end = Math.round((e.end_h * 3600) / 60);

  it('meets the event from its due time, and draws what the schedule draws outside it', () => {
    expect(e.requested_w).toBeCloseTo(0.2 * e.baseline_w, 6);
    expect(e.met_share).toBe(1);
    expect(e.time_to_reach_min).toBe(15);
    const it0 = plain.r.full!.it;
    const it = withEvent.r.full!.it;
    for (let k = due; k < end; k++) expect(it[k]!).toBeLessThanOrEqual(e.limit_w + 1e-6);
    expect(Array.from(it.subarray(0, due))).toEqual(Array.from(it0.subarray(0, due)));
    expect(Array.from(it.subarray(end))).toEqual(Array.from(it0.subarray(end)));
  });

  it('counts the requests the stopped instances leave: the level reports them on top of the schedule', () => {
    const added = Object.values(g.incomplete_requests!).reduce((a, b) => a + b, 0);
    expect(added).toBeGreaterThan(0);
    expect(Object.values(e.incomplete_requests!).reduce((a, b) => a + b, 0)).toBeCloseTo(added, 6);
    expect(withEvent.r.incomplete - plain.r.incomplete).toBeCloseTo(added, 6);
    expect(withEvent.r.requests).toBe(plain.r.requests);
    // Work lost is the stopped instances' node-hours.
    expect(Object.values(e.work_lost_node_h).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // The event table (CLI, page, report) says how many requests the response left.
    expect(eventCells(e, 'USD')[EVENT_HEADERS.indexOf('work lost node-h')]).toMatch(/; [\d.]+( k| M)? requests incomplete$/);
  });

  it('stops whole instances, and per step no choice of instances meeting the limit loses fewer requests', () => {
    if (withEvent.b.kind !== 'inference') throw new Error('not an inference model');
    const m = withEvent.b.m;
    const per = simulateInference(m, LOAD, SEED, true, true).services!;
    const it = withEvent.r.full!.it;
    let lostSum = 0;
    let optimal = 0;
    let worst = 0;
    for (let s = due; s < end; s++) {
      const K = per.map((q) => q.instances[s]!);
      const site = (k: number[]) => {
        let w = 0;
        let served = 0;
        let busy = 0;
        m.services.forEach((sv, j) => {
          const sr = Math.min(per[j]!.rate[s]!, k[j]! * sv.rateMax);
          if (k[j]! > 0) w += k[j]! * sv.nodesPerInstance * powerAt(sv.curve, sr / k[j]!);
          served += sr;
          busy += k[j]! * sv.nodesPerInstance;
        });
        return { w: w + (m.nodes - busy) * m.idleW, served };
      };
      const full = site(K);
      let match: { served: number } | null = null;
      let best = Infinity;
      for (let a = 0; a <= K[0]!; a++)
        for (let b = 0; b <= K[1]!; b++) {
          const x = site([a, b]);
          if (Math.abs(x.w - it[s]!) < 1e-6) match = x;
          if (x.w <= e.limit_w + 1e-6) best = Math.min(best, full.served - x.served);
        }
      expect(match, `step ${s}: the response's power is some number of whole instances`).not.toBeNull();
      const lost = full.served - match!.served;
      lostSum += lost * 60;
      expect(lost).toBeGreaterThanOrEqual(best - 1e-9);
      // Off the optimum by less than one instance's requests (the largest rate_max here).
      expect(lost - best).toBeLessThan(6);
      worst = Math.max(worst, lost - best);
      if (lost <= best + 1e-9) optimal++;
    }
    expect(lostSum).toBeCloseTo(Object.values(e.incomplete_requests!).reduce((a, b) => a + b, 0), 3);
    // Greedy over whole instances: optimal at most steps of this site (a knapsack over instances need not be).
    expect(optimal / (end - due)).toBeGreaterThanOrEqual(0.85);
  });
});
