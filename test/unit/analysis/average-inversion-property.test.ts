// Property: random power traces (plateaus of 2-30 s with noise and wander) through a simulated 1 s moving average read
// every 10-100 ms, either fresh at the reading's instant (aligned as CapLab assumes) or, as NVML serves it, holding
// the value of the last update on a 100 ms grid of random phase (each reading 0-100 ms old by its own amount): the
// energy of every window of 8 s or more, edges anywhere (on steps too), is within 2 % of the truth. And the counter read every 100 ms, a window edge on a load -> idle step: the step inside the cut interval
// is placed by its energy. CAPLAB_FUZZ_LONG=1 runs 1,000 cases.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DENSE_AVERAGE_ENERGY_ALIGN_S, NVML_UPDATE_S } from '../../../src/core/analysis/average-power';
import { windowEnergy } from '../../../src/core/analysis/energy';
import { PowerSim } from '../../helpers/power-sim';

const LONG = process.env.CAPLAB_FUZZ_LONG === '1';

const trace = fc.record({
  plateaus: fc.array(fc.record({ duration: fc.double({ min: 2, max: 30, noNaN: true }), level_w: fc.double({ min: 60, max: 700, noNaN: true }) }), { minLength: 2, maxLength: 8 }),
  noise_w: fc.double({ min: 0, max: 60, noNaN: true }),
  wander_w: fc.double({ min: 0, max: 20, noNaN: true }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  dt: fc.double({ min: 0.01, max: 0.1, noNaN: true }),
  /** Window: where it starts (share of the trace) and how long (>= 8 s); or from a step. */
  from: fc.double({ min: 0, max: 1, noNaN: true }),
  len: fc.double({ min: 8, max: 40, noNaN: true }),
  atStep: fc.boolean(),
  /** Readings hold NVML's last update (grid phase in s), or are fresh. */
  held: fc.option(fc.double({ min: 0, max: NVML_UPDATE_S, noNaN: true, maxExcluded: true }), { nil: undefined }),
});

describe('1 s average read faster than its window (property)', () => {
  it('gives the energy of any window of 8 s or more within 2 %', () => {
    fc.assert(
      fc.property(trace, (s) => {
        const sim = new PowerSim({ plateaus: [{ duration: 5, level_w: 100 }, ...s.plateaus, { duration: 5, level_w: 100 }], noise_w: s.noise_w, wander_w: s.wander_w, seed: s.seed });
        const len = Math.min(s.len, sim.duration - 4);
        if (len < 8) return;
        const steps = sim.steps.filter((x) => x + len < sim.duration - 2);
        const start = s.atStep && steps.length ? steps[Math.floor(s.from * steps.length) % steps.length]! : 2 + s.from * (sim.duration - 4 - len);
        const w = { start, end: start + len };
        const held = s.held;
        const value = (t: number) => (held === undefined ? sim.average(t, 1, DENSE_AVERAGE_ENERGY_ALIGN_S) : sim.average(held + Math.floor((t - held) / NVML_UPDATE_S) * NVML_UPDATE_S));
        const samples = sim.times(s.dt, 0.03, s.seed).map((t) => ({ t, power_w: value(t), power_kind: 'average' as const }));
        const r = windowEnergy(samples, w);
        const truth = sim.energy(w.start, w.end);
        expect(Math.abs(r.energy_j! - truth) / truth).toBeLessThan(0.02);
      }),
      { numRuns: LONG ? 1000 : 40 },
    );
  });
});

describe('energy counter read every 100 ms, window edges on steps', () => {
  // 600 W load until the step, then 100 W; the counter read every 100 ms from 0.03 s.
  const counter = (step: number) =>
    Array.from({ length: 400 }, (_, i) => {
      const t = 0.03 + i * 0.1;
      return { t, energy_mj: (600 * Math.min(t, step) + 100 * Math.max(0, t - step)) * 1000 };
    });
  it('places the step inside the cut interval by its energy: exact where linear interpolation errs by up to dP dt / 4', () => {
    for (const f of [0.2, 0.5, 0.8]) {
      const step = 20.03 + f * 0.1;
      const w = { start: step, end: step + 10 };
      const truth = 100 * 10;
      const r = windowEnergy(counter(step), w);
      expect(r.energy_j).toBeCloseTo(truth, 6);
      // Linear interpolation in the cut interval would count (1 - f) f dt of it at the load's level.
      const linear = truth + 500 * (1 - f) * f * 0.1;
      expect(linear - truth).toBeGreaterThan(7);
      // The stated edge bound: the step times half NVML's 100 ms update, at the one edge on a step.
      expect(r.edge_uncertainty_j).toBeCloseTo(500 * 0.05, 6);
    }
  });
});
