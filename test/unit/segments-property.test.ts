// Property: random step sequences (plateaus of 12-60 s, white noise up to 15 W or none, a slow wander up to 2 W rms,
// within NVML's stated 5 W), read as instant power or through a 1 s moving average at 100 ms - 1 s: every phase edge
// lies within one sample interval of its true step (the averaging lag corrected), or further only across readings
// that lie nearer the other level (the readings themselves put the step there), and there is one phase per plateau,
// no more. CAPLAB_FUZZ_LONG=1 runs 1,000 cases; CAPLAB_FUZZ_SEED replays a seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AVERAGE_STEP_LAG_S, DENSE_AVERAGE_ALIGN_S } from '../../src/core/analysis/average-power';
import { NVML_STATED_W } from '../../src/core/analysis/energy-uncertainty';
import { binMeans, detectPhases } from '../../src/core/segments';
import { PowerSim } from '../helpers/power-sim';

const LONG = process.env.CAPLAB_FUZZ_LONG === '1';
const SEED = process.env.CAPLAB_FUZZ_SEED === undefined ? undefined : Number(process.env.CAPLAB_FUZZ_SEED);

const plateaus = fc
  .array(fc.record({ duration: fc.double({ min: 12, max: 60, noNaN: true }), level: fc.double({ min: 60, max: 700, noNaN: true }) }), { minLength: 1, maxLength: 7 })
  // Neighbouring levels at least 80 W apart: a step, not noise (a level too close to the one before moves away from it).
  .map((ps) => {
    const out: { duration: number; level_w: number }[] = [];
    for (const p of ps) {
      const prev = out[out.length - 1]?.level_w;
      const level = prev === undefined || Math.abs(p.level - prev) >= 80 ? p.level : prev > 380 ? prev - 80 - (p.level % 200) : prev + 80 + (p.level % 200);
      out.push({ duration: p.duration, level_w: level });
    }
    return out;
  });

const scenario = fc.record({
  plateaus,
  // No white noise at all is its own case: a quiet trace's slow wander alone once split plateaus.
  noise_w: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 15, noNaN: true })),
  wander_w: fc.double({ min: 0, max: 2, noNaN: true }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  dt: fc.double({ min: 0.1, max: 1, noNaN: true }),
  sensor: fc.constantFrom('instant' as const, 'average' as const),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

/** The scenario's readings and the phases found on them. */
function detect(s: Scenario) {
  const sim = new PowerSim({ plateaus: s.plateaus, noise_w: s.noise_w, wander_w: s.wander_w, seed: s.seed });
  const t = sim.times(s.dt, 0.03, s.seed);
  const v = t.map((x) => (s.sensor === 'instant' ? sim.instant(x) : sim.average(x, 1, DENSE_AVERAGE_ALIGN_S)));
  const lag = s.sensor === 'average' ? AVERAGE_STEP_LAG_S : 0;
  const b = binMeans(t, v, 4000);
  return { sim, t, v, lag, phases: detectPhases(b.t, b.v, b.width, { lag_s: lag, min_step: NVML_STATED_W }) };
}

/**
 * Why edge i (the start of phase i + 1) breaks the rule, or null. Further than one interval from its step is allowed
 * only where every reading in between (at its lag-corrected time) is nearer the level of the phase it was given than
 * its true one: 15 W of noise on an 80 W step puts a reading past the half-way level about once in 500, and then the
 * least-squares edge, like any edge read from the readings, moves past it.
 */
function edgeFault(s: Scenario, r: ReturnType<typeof detect>, i: number): string | null {
  const step = r.sim.steps[i]!;
  const edge = r.phases[i + 1]!.start;
  if (Math.abs(edge - step) <= s.dt) return null;
  const [before, after] = [s.plateaus[i]!.level_w, s.plateaus[i + 1]!.level_w];
  const [lo, hi] = edge < step ? [edge, step] : [step, edge];
  const between = r.t.flatMap((x, j) => (x - r.lag > lo && x - r.lag < hi ? [{ x: x - r.lag, w: r.v[j]! }] : []));
  const misread = (p: { x: number; w: number }) => (p.x < step ? Math.abs(p.w - after) < Math.abs(p.w - before) : Math.abs(p.w - before) < Math.abs(p.w - after));
  if (between.length > 0 && between.every(misread)) return null;
  const shown = between.map((p) => `${(p.x - step).toFixed(2)} s: ${p.w.toFixed(1)} W`).join(', ');
  return `edge ${i} at ${edge.toFixed(3)} s, ${(edge - step).toFixed(3)} s from its step (${before.toFixed(1)} -> ${after.toFixed(1)} W) at a ${s.dt.toFixed(3)} s interval; readings between: ${shown}`;
}

/** Plateaus from [duration s, level W] pairs (a counterexample as fast-check printed it). */
const plateausOf = (...ps: [number, number][]) => ps.map(([duration, level_w]) => ({ duration, level_w }));

function check(s: Scenario) {
  const r = detect(s);
  expect(r.phases).toHaveLength(s.plateaus.length);
  r.phases.slice(1).forEach((p, i) => {
    expect(edgeFault(s, r, i)).toBeNull();
    expect(r.phases[i]!.end).toBe(p.start);
  });
  return r;
}

describe('phase detection (property)', () => {
  it('puts every edge within one sample interval of its step (or past readings nearer the other level), one phase per plateau', () => {
    fc.assert(
      fc.property(scenario, (s) => void check(s)),
      // A fresh seed each run (fast-check prints it on a failure); CAPLAB_FUZZ_SEED replays one.
      { numRuns: LONG ? 1000 : 60, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  // Seed -1181806601, the counterexample noted open in #25 (run 14 of that seed with the generator of 2026-12-04,
  // before the noise-free case was added): the 60 -> 199 W edge came 0.220 s late at a 0.178 s interval on the code
  // of 66ae069, because the split's range still held the 405 W plateau; each edge is now refit on its own two phases.
  it('puts the 60 -> 199 W edge of seed -1181806601 within its 0.178 s interval, though a 405 W plateau follows', () => {
    const r = check({
      plateaus: plateausOf([13.240196903509288, 60], [15.71665867827619, 198.61188590477866], [26.363212622252522, 405.25349415273763], [28.379253573824624, 276.3231864350756], [12.000000000000016, 465.84979239832603], [12.00000000000002, 67.55781391485344], [14.619581415312698, 207.55781391485354]),
      noise_w: 14.999999999999973,
      wander_w: 1.3113814283406368e-77,
      seed: 541181812,
      dt: 0.17813476849538554,
      sensor: 'instant',
    });
    expect(Math.abs(r.phases[1]!.start - r.sim.steps[0]!)).toBeLessThan(0.178 / 2);
  });

  // Seed 2017123374, run 978: a 78 -> 164 W step under 15 W of noise read every 0.598 s. The first reading after the
  // step (0.51 s in) is 118.1 W, below the half-way 121.1 W, so the edge lands 0.829 s late, past it: that is where
  // the readings put the step. A reading on its own level's side is no excuse: an edge one reading later still, past
  // the 142.9 W at 1.14 s, breaks the rule.
  const misreadStep: Scenario = {
    plateaus: plateausOf([43.127104903973716, 234.44142523156054], [51.441293639207515, 488.7023032927798], [14.04344383923728, 352.684090526111], [37.946686267726164, 77.91537999449328], [20.470976340133063, 164.25835933361404], [14.216506129079171, 317.3202942409024], [41.43455806722578, 482.0814033615956]),
    noise_w: 14.999999999999973,
    wander_w: 3.19019915491571e-289,
    seed: 743745052,
    dt: 0.597925647084419,
    sensor: 'instant',
  };
  it('lets an edge pass a reading nearer the other level (seed 2017123374: 118.1 W just after a 78 -> 164 W step), no other', () => {
    const r = check(misreadStep);
    expect(r.phases[4]!.start - r.sim.steps[3]!).toBeGreaterThan(misreadStep.dt);
    const late = r.phases.map((p, i) => (i === 4 ? { ...p, start: (r.t.find((x) => x > r.sim.steps[3]! + 1)! + r.t.find((x) => x > r.sim.steps[3]! + 1.5)!) / 2 } : p));
    expect(edgeFault(misreadStep, { ...r, phases: late }, 3)).toMatch(/from its step \(77\.9 -> 164\.3 W\) .* 1\.14 s: 142\.9 W/);
  });

  // The long runs' counterexamples (2 of 3 long runs found one like them): no white noise, a slow ~2 W wander. A 200 W
  // plateau read as instant power drifted 205 -> 200 W over 10 s and was cut in two (204.9 W and 199.9 W); a 60 W one
  // read through a 1 s average drifted 64 -> 56 W over 3 s (61.1 and 56.1 W). Each pair 5 W apart: NVML's stated accuracy.
  const drifting = [
    {
      sensor: 'instant' as const,
      plateaus: [
        { duration: 21.545, level_w: 60 },
        { duration: 30.49, level_w: 200 },
        { duration: 12, level_w: 60 },
      ],
      wander_w: 1.9844839496770943,
      seed: 786052048,
      dt: 0.30785298473704903,
    },
    { sensor: 'average' as const, plateaus: [{ duration: 48.558057155761595, level_w: 60 }], wander_w: 1.7626823170677082, seed: 546516681, dt: 0.19117933439004944 },
  ];
  for (const c of drifting)
    it(`keeps a plateau that only drifts (no white noise, a slow ~2 W wander, ${c.sensor} readings) as one phase`, () => {
      const sim = new PowerSim({ plateaus: c.plateaus, noise_w: 0, wander_w: c.wander_w, seed: c.seed });
      const t = sim.times(c.dt, 0.03, c.seed);
      const v = t.map((x) => (c.sensor === 'instant' ? sim.instant(x) : sim.average(x, 1, DENSE_AVERAGE_ALIGN_S)));
      const b = binMeans(t, v, 4000);
      const phases = detectPhases(b.t, b.v, b.width, { lag_s: c.sensor === 'average' ? AVERAGE_STEP_LAG_S : 0, min_step: NVML_STATED_W });
      expect(phases).toHaveLength(c.plateaus.length);
      phases.forEach((p, i) => expect(Math.abs(p.mean - c.plateaus[i]!.level_w)).toBeLessThan(2 * NVML_STATED_W));
      phases.slice(1).forEach((p, i) => expect(Math.abs(p.start - sim.steps[i]!)).toBeLessThanOrEqual(c.dt));
    });
});
