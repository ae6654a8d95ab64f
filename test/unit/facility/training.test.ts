import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../src/core/facility/model';
import { findLoad, replicaSeed, runReplica, simulate, UTIL_TOLERANCE } from '../../../src/core/facility/run';
import { firstStepOfHour, simulateTraining, type TrainingModel } from '../../../src/core/facility/training';
import { toSteps } from '../../../src/core/facility/profile';
import { sampler } from '../../../src/core/facility/rng';
import { scenario } from './helpers';

describe('facility training mode', () => {
  it('gives the same series for the same seed and a different one for another seed', () => {
    const b = buildModel(scenario());
    const a1 = simulate(b, 300, 11, true);
    const a2 = simulate(b, 300, 11, true);
    const other = simulate(b, 300, 12, true);
    expect(Buffer.from(a1.it.buffer).equals(Buffer.from(a2.it.buffer))).toBe(true);
    expect(a1.jobsStarted).toBe(a2.jobsStarted);
    expect(Buffer.from(a1.it.buffer).equals(Buffer.from(other.it.buffer))).toBe(false);
  });

  it('draws the same jobs with power off (the search) as with power on (the reported run)', () => {
    const b = buildModel(scenario());
    const off = simulate(b, 300, 5, false);
    const on = simulate(b, 300, 5, true);
    expect(off.utilization).toBe(on.utilization);
    expect(Array.from(off.busy)).toEqual(Array.from(on.busy));
  });

  it('finds the daily job count that hits the target utilisation', () => {
    const sc = scenario();
    const b = buildModel(sc);
    for (const target of [0.2, 0.7]) {
      const found = findLoad(b, target, 7);
      expect(Math.abs(found.utilization - target)).toBeLessThanOrEqual(UTIL_TOLERANCE);
      // Replica 0 at the found load reproduces the search's utilisation.
      expect(runReplica(sc, b, found.load, replicaSeed(7, 0)).utilization).toBe(found.utilization);
    }
  });

  it('rejects a target the pool cannot reach', () => {
    // Each job fills the whole pool: with random arrivals 100 % would need a job waiting at every instant from the start.
    const b = buildModel(scenario({ nodes: 16, targets: [1], jobs: [{ name: 'big', share: 1, nodes: { dist: 'fixed', value: 16 }, duration_h: { dist: 'fixed', value: 24 }, profile: { builtin: 'llama2-70b-lora' } }] }));
    expect(() => findLoad(b, 1, 1)).toThrow(/targets: utilisation 100.0 % is not reachable/);
  });

  it('power is idle power for free nodes plus each job profile over its steps', () => {
    const profile = toSteps({ t_s: [0, 60, 120], power_w: [1000, 3000, 2000] }, 60);
    const m: TrainingModel = {
      nodes: 10,
      idleW: 400,
      stepS: 60,
      steps: 2000,
      allocation: 'fifo',
      hourly: new Float64Array(40).fill(1),
      types: [{ name: 'x', share: 1, nodes: sampler({ dist: 'fixed', value: 2 }), durationH: sampler({ dist: 'fixed', value: 3 / 60 }), profile, stretch: 1 }],
    };
    const r = simulateTraining(m, 100, 3, true);
    for (let s = 0; s < m.steps; s++) {
      const busy = r.busy[s]!;
      // Each running 2-node job adds 2 x (1000 | 3000 | 2000); the sum over jobs minus idle is a multiple of 2,000 W.
      const jobsW = r.it[s]! - 400 * (10 - busy);
      expect(jobsW).toBeGreaterThanOrEqual(busy * 1000 - 1e-6);
      expect(jobsW).toBeLessThanOrEqual(busy * 3000 + 1e-6);
    }
    const energyPerJob = 2 * (1000 + 3000 + 2000) * 60;
    const total = r.it.reduce((a, w) => a + w, 0) * 60 - r.busy.reduce((a, b) => a + 400 * (10 - b), 0) * 60;
    // Jobs cut by the horizon's end contribute less than a whole profile.
    expect(total).toBeLessThanOrEqual(r.jobsStarted * energyPerJob + 1e-3);
    expect(total).toBeGreaterThan((r.jobsStarted - 5) * energyPerJob);
  });

  it('backfill starts small jobs around a blocked large one and shortens waits', () => {
    const over = {
      nodes: 32,
      targets: [0.6],
      jobs: [
        { name: 'big', share: 0.1, nodes: { dist: 'fixed' as const, value: 32 }, duration_h: { dist: 'fixed' as const, value: 4 }, profile: { builtin: 'llama2-70b-lora' } },
        { name: 'small', share: 0.9, nodes: { dist: 'fixed' as const, value: 1 }, duration_h: { dist: 'fixed' as const, value: 1 }, profile: { builtin: 'llama2-70b-lora' } },
      ],
    };
    const fifo = simulate(buildModel(scenario({ ...over, allocation: 'fifo' })), 150, 9, false);
    const backfill = simulate(buildModel(scenario({ ...over, allocation: 'backfill' })), 150, 9, false);
    expect(backfill.waitMeanH).toBeLessThan(fifo.waitMeanH);
    expect(backfill.utilization).toBeGreaterThan(fifo.utilization);
  });

  it('a fleet cap lowers the power of busy nodes and stretches jobs (more node-hours for the same jobs)', () => {
    const base = buildModel(scenario());
    const capped = buildModel(scenario({ fleet_cap_w: 500 }));
    const a = simulate(base, 300, 4, true);
    const b = simulate(capped, 300, 4, true);
    expect(b.jobsStarted).toBe(a.jobsStarted);
    // H100 throughput at 500 W is 0.915 of 700 W: ~9 % more busy node-hours.
    expect(b.utilization / a.utilization).toBeGreaterThan(1.05);
    expect(b.utilization / a.utilization).toBeLessThan(1.15);
    const perBusyNode = (r: typeof a) => {
      let w = 0;
      let n = 0;
      for (let s = 0; s < r.it.length; s++) {
        w += r.it[s]! - 420 * (200 - r.busy[s]!);
        n += r.busy[s]!;
      }
      return w / n;
    };
    expect(perBusyNode(b)).toBeLessThan(perBusyNode(a) - 200);
  });

  it('works out the first step of each hour exactly as dividing the step by the steps per hour does, also for steps that do not divide an hour', () => {
    for (const stepS of [1, 7, 13, 45, 60, 61, 997, 3600]) {
      const perHour = 3600 / stepS;
      let s = 0;
      for (let h = 0; h <= 2000; h++) {
        while (Math.floor(s / perHour) < h) s++;
        expect(firstStepOfHour(h, perHour), `step ${stepS} s, hour ${h}`).toBe(s);
      }
    }
  });

  it('arrivals follow the hour-of-day shape', () => {
    const night = Array(24).fill(0.1);
    for (let h = 9; h < 17; h++) night[h] = 1;
    const r = simulate(buildModel(scenario({ arrivals: { hour_of_day: night } })), 300, 2, true);
    let day = 0;
    let nightW = 0;
    for (let s = 0; s < r.it.length; s++) {
      const h = Math.floor((s * 60) / 3600) % 24;
      if (h >= 12 && h < 18) day += r.it[s]!;
      if (h >= 2 && h < 8) nightW += r.it[s]!;
    }
    expect(day).toBeGreaterThan(nightW * 1.3);
  });
});
