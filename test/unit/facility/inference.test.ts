import { describe, expect, it } from 'vitest';
import { powerAt, rateCurve, simulateInference, type InferenceModel } from '../../../src/core/facility/inference';
import { buildModel } from '../../../src/core/facility/model';
import { findLoad, UTIL_TOLERANCE } from '../../../src/core/facility/run';
import { scenario } from './helpers';
import type { FacilityConfigInput } from '../../../src/shared/facility';

const curve = rateCurve([
  [0, 1000],
  [5, 3000],
]);

function flatModel(peakRps: number, maxInstances: number): InferenceModel {
  return {
    nodes: 10,
    idleW: 400,
    stepS: 60,
    steps: 60,
    services: [{ name: 's', peakRps, hourly: new Float64Array(2).fill(1), noiseSigma: 0, rateMax: 5, nodesPerInstance: 2, maxInstances, curve }],
  };
}

describe('facility inference mode', () => {
  it('interpolates node power against request rate, held at the ends', () => {
    expect(powerAt(curve, 2.5)).toBe(2000);
    expect(powerAt(curve, -1)).toBe(1000);
    expect(powerAt(curve, 50)).toBe(3000);
  });

  it('runs K = min(ceil(rate / rate_max), N_max) instances at rate / K each', () => {
    // 12 req/s over rate_max 5: 3 instances of 2 nodes at 4 req/s (2,600 W); 4 nodes idle.
    const r = simulateInference(flatModel(12, 5), 1, 1, true);
    expect(r.busy[0]).toBe(6);
    expect(r.it[0]).toBeCloseTo(6 * 2600 + 4 * 400, 6);
    expect(r.incomplete).toBe(0);
    expect(r.utilization).toBeCloseTo(0.6, 9);
  });

  it('counts requests beyond N_max x rate_max as incomplete', () => {
    // Capacity 2 x 5 = 10 req/s; demand 12 req/s for 60 steps of 60 s.
    const r = simulateInference(flatModel(12, 2), 1, 1, true);
    expect(r.busy[0]).toBe(4);
    expect(r.it[0]).toBeCloseTo(4 * 3000 + 6 * 400, 6);
    expect(r.incomplete).toBeCloseTo(2 * 60 * 60, 6);
    expect(r.requests).toBeCloseTo(12 * 60 * 60, 6);
  });

  it('demand follows the day and week profiles: instances (and nodes busy) track peak_rps x day x week', () => {
    // Monday 2025-01-06; weekends at half demand; 08:00-20:00 at full, nights at a quarter; no noise.
    const day = Array.from({ length: 24 }, (_, h) => (h >= 8 && h < 20 ? 1 : 0.25));
    const cfg: FacilityConfigInput = {
      mode: 'inference', start: '2025-01-06T00:00:00Z', horizon_days: 7, step_s: 3600, nodes: 100, idle_w: 420, rated_w: 3520, targets: [0.2],
      services: [{ name: 'chat', peak_rps: 80, day, week: [1, 1, 1, 1, 1, 0.5, 0.5], noise_sigma: 0, rate_max: 4, nodes_per_instance: 1, max_instances: 100, power: { builtin: 'llama3-70b-serving' } }],
    };
    const b = buildModel(scenario({}, cfg));
    if (b.kind !== 'inference') throw new Error('expected an inference model');
    const r = simulateInference(b.m, 1, 1, true);
    const at = (dayIndex: number, hour: number) => r.busy[dayIndex * 24 + hour]!;
    expect(at(0, 12)).toBe(20); // Monday noon: 80 req/s / 4 = 20 instances
    expect(at(0, 3)).toBe(5); // Monday night: a quarter
    expect(at(5, 12)).toBe(10); // Saturday noon: half
    expect(at(6, 3)).toBe(3); // Sunday night: ceil(80 x 0.25 x 0.5 / 4) = 3 (2.5 rounded up to whole instances)
    expect(r.incomplete).toBe(0);
  });

  it('scales demand to reach a target utilisation and is deterministic per seed', () => {
    const cfg: FacilityConfigInput = {
      mode: 'inference',
      horizon_days: 7,
      step_s: 300,
      nodes: 50,
      idle_w: 420,
      rated_w: 3520,
      targets: [0.4],
      services: [{ name: 'chat', peak_rps: 100, day: Array.from({ length: 24 }, (_, h) => 0.3 + Math.sin((Math.PI * h) / 24)), rate_max: 6, max_instances: 50, power: { builtin: 'llama3-70b-serving' } }],
    };
    const b = buildModel(scenario({}, cfg));
    const found = findLoad(b, 0.4, 3);
    expect(Math.abs(found.utilization - 0.4)).toBeLessThanOrEqual(UTIL_TOLERANCE);
    const a = simulateInference(b.kind === 'inference' ? b.m : (undefined as never), found.load, 3, true);
    const again = simulateInference(b.kind === 'inference' ? b.m : (undefined as never), found.load, 3, true);
    expect(Array.from(a.it)).toEqual(Array.from(again.it));
  });
});
