import { describe, expect, it } from 'vitest';
import { AdaptiveWindow, batchMeansHalfWidth, STEADY_MIN_POINTS } from '../../../src/core/sweep/adaptive-window';
import { RunProgress } from '../../../src/main/lab/runner/progress';
import { formatProtocolEvent } from '../../../src/shared/protocol';
import { gaussian } from '../../../src/core/sim/random';

/** A window fed with steps of `dt` s and power readings every 0.1 s: rate and power as functions of time. */
function feed(w: AdaptiveWindow, start: number, seconds: number, dt: number, rate: (t: number, k: number) => number, power: (t: number, k: number) => number): number {
  let t = start;
  let k = 0;
  let p = start;
  let j = 0;
  while (t + dt <= start + seconds + 1e-9) {
    t += dt;
    w.step(t, rate(t, k) * dt, dt);
    for (; p + 0.1 <= t + 1e-9; j++) {
      p += 0.1;
      w.sample('sim:0', p, power(p, j));
    }
    k++;
  }
  return t;
}

const rule = { ci_target: 0.01, min_s: 10 };
const noisy = (sd: number, seed: number) => (_t: number, k: number) => 300 * (1 + sd * gaussian(seed, k));

describe('adaptive window: stops once steady and within the CI target, never below the minimum', () => {
  it('a steady, quiet run stops at the minimum window, not before', () => {
    const w = new AdaptiveWindow(rule, 1000);
    // 0.1 s steps: 50 steps take 5 s, under min_s, so the minimum decides.
    const t5 = feed(w, 1000, 5, 0.1, noisy(0.01, 1), noisy(0.005, 2));
    expect(w.judge(t5)).toMatchObject({ stop: false });
    expect(w.judge(t5).reason).toContain('minimum window');
    const w2 = new AdaptiveWindow(rule, 1000);
    const t10 = feed(w2, 1000, 10, 0.1, noisy(0.01, 1), noisy(0.005, 2));
    const v = w2.judge(t10);
    expect(v.stop).toBe(true);
    expect(v.elapsed_s).toBeGreaterThanOrEqual(rule.min_s - 1e-9);
    expect(v.throughput_ci!).toBeLessThanOrEqual(0.01);
  });

  it('never stops before the steady-state test has 50 steps, whatever min_s says', () => {
    const w = new AdaptiveWindow({ ci_target: 0.5, min_s: 0.001 }, 0);
    // 1 s steps: 49 steps in 49 s, power readings aplenty.
    const t = feed(w, 0, STEADY_MIN_POINTS - 1, 1, () => 300, () => 300);
    const v = w.judge(t);
    expect(v.stop).toBe(false);
    expect(v.throughput_ci).toBeNull();
    expect(v.reason).toContain('50 steps');
    // The 50th step gives throughput its CI; power waits for 50 whole steps inside its readings (the first one began
    // with the window, before the first reading): one step more.
    for (let k = 1; k <= 2; k++) {
      w.step(t + k, 300, 1);
      w.sample('sim:0', t + k, 300);
      expect(w.judge(t + k).stop, `step ${STEADY_MIN_POINTS - 1 + k}`).toBe(k === 2);
    }
  });

  it('a run still ramping up is not steady, so it goes on', () => {
    const w = new AdaptiveWindow({ ci_target: 0.5, min_s: 1 }, 0);
    const ramp = (t: number) => 300 * (1 - 0.4 * Math.exp(-t / 20));
    const t = feed(w, 0, 30, 0.2, ramp, ramp);
    const v = w.judge(t);
    expect(v.steady).toBe(false);
    expect(v.stop).toBe(false);
  });

  it('a steady but noisy run waits for its CI to narrow to the target', () => {
    const w = new AdaptiveWindow(rule, 0);
    const t = feed(w, 0, 12, 0.2, noisy(0.2, 5), noisy(0.005, 6));
    const v = w.judge(t);
    expect(v.stop).toBe(false);
    expect(v.throughput_ci!).toBeGreaterThan(0.01);
    expect(v.reason).toContain('above the 1.00 % target');
  });

  it('batch-means half-width: null below 50 points, about t * sd / sqrt(n) for independent noise', () => {
    expect(batchMeansHalfWidth(Array.from({ length: 49 }, () => 1))).toBeNull();
    const xs = Array.from({ length: 10_000 }, (_, k) => 100 * (1 + 0.01 * gaussian(9, k)));
    const h = batchMeansHalfWidth(xs)!;
    expect(h).toBeGreaterThan(0.3 * 1.96 * 0.01 / Math.sqrt(10_000));
    expect(h).toBeLessThan(3 * 2.26 * 0.01 / Math.sqrt(10_000));
  });
});

/**
 * A training-like trace: 0.4 s steps (2 % jitter), the first half of each at 400 W and the second at 700 W (forward,
 * backward), its mean drifting by `drift` per second; readings every 0.1 s with 0.5 % noise and, with `counter`,
 * an energy counter that integrates the true power as NVML's does. Feeds until the window stops or 45 s pass.
 */
function stepPeriodic(drift: number, counter: boolean, step_s = 0.4, jitter = 0.02): { stop: number | null; verdict: ReturnType<AdaptiveWindow['judge']>; readings: number[] } {
  const w = new AdaptiveWindow(rule, 0);
  const truth = (x: number, stepStart: number, dt: number) => ((x - stepStart) / dt < 0.5 ? 400 : 700) * (1 + drift * x);
  const readings: number[] = [];
  let t = 0;
  let p = 0;
  let energy_j = 0;
  let j = 0;
  for (let k = 0; t < 45; k++) {
    const dt = step_s * (1 + jitter * gaussian(3, k));
    const a = t;
    t += dt;
    for (; p + 0.1 <= t + 1e-9; j++) {
      // The counter's share of the 0.1 s since the last reading, in 1 ms slices of the true power.
      for (let q = 0; q < 100; q++) {
        const x = p + (q + 0.5) * 0.001;
        energy_j += truth(x, x < a ? a - dt : a, dt) * 0.001;
      }
      p += 0.1;
      const reading = truth(p, a, dt) * (1 + 0.005 * gaussian(4, j));
      readings.push(reading);
      w.sample('sim:0', p, reading, counter ? energy_j * 1000 : null);
    }
    w.step(t, 1000, dt);
    const v = w.judge(t);
    if (v.stop) return { stop: t, verdict: v, readings };
  }
  return { stop: null, verdict: w.judge(t), readings };
}

describe('adaptive window: power judged over whole steps', () => {
  // The real H200's LLM (bench/results/h200-adaptive-2026-12-03.md): 2048-token steps at ~20,200 tokens/s take
  // ~0.1 s, the sampling period, so readings strobe the within-step swing and their batch means wander.
  const LLM_STEP_S = 0.101;

  it('0.1 s steps swinging 400/700 W, steady mean: the energy counter per step settles it at the minimum window', () => {
    const r = stepPeriodic(0, true, LLM_STEP_S);
    expect(r.stop).not.toBeNull();
    expect(r.stop!).toBeLessThan(rule.min_s + 1);
    expect(r.verdict.power_ci!).toBeLessThanOrEqual(rule.ci_target);
    // The readings' own batch means (the rule before) are far off on the same trace, as on the real card.
    expect(batchMeansHalfWidth(r.readings)!).toBeGreaterThan(0.05);
    // Without a counter the per-step means come from the same strobed readings: it keeps waiting, as before.
    expect(stepPeriodic(0, false, LLM_STEP_S).stop).toBeNull();
  });

  it('0.4 s steps swinging 400/700 W, steady mean: settles once 50 steps are in, counter or not', () => {
    for (const counter of [true, false]) {
      const r = stepPeriodic(0, counter, 0.4);
      expect(r.stop, `counter ${counter}`).not.toBeNull();
      expect(r.stop!).toBeLessThan(30);
      expect(r.verdict.power_ci!).toBeLessThanOrEqual(rule.ci_target);
    }
  });

  it('the same swings on a mean drifting by 0.2 %/s do not settle within 45 s', () => {
    for (const step_s of [LLM_STEP_S, 0.4]) {
      for (const counter of [true, false]) {
        const r = stepPeriodic(0.002, counter, step_s);
        expect(r.stop, `${step_s} s steps, counter ${counter}`).toBeNull();
        expect(r.verdict.steady, `${step_s} s steps, counter ${counter}`).toBe(false);
      }
    }
  });
});

/**
 * NVML's energy counter as the H200 shows it (bench/results/h200-signal-edges-2026-12-04.md): it holds the true
 * energy at its last update, every 100 ms, and is read in readings of its own (power null) every `read_s` s, beside
 * power readings every 0.1 s. Steps of `step_s` (`jitter` relative sd) swing 400/700 W within themselves, their mean
 * drifting by `drift` per second. `counter: false` leaves the counter readings out (the window before this change on
 * the real card: NVML's sampler readings carry none, and the edge readings never reached the window).
 */
function nvmlTrace(o: { step_s: number; jitter: number; drift: number; read_s: number | 'step'; counter: boolean; seconds?: number }) {
  const w = new AdaptiveWindow(rule, 0);
  const truth = (x: number, a: number, dt: number) => ((x - a) / dt < 0.5 ? 400 : 700) * (1 + o.drift * x);
  const H = 0.001;
  let x = 0;
  let energy = 0;
  let held = 0;
  let update = 0.037;
  let read = o.read_s === 'step' ? Infinity : o.read_s;
  let power = 0.1;
  let j = 0;
  const counter: { t: number; j: number }[] = [];
  const steps: { a: number; b: number }[] = [];
  let t = 0;
  let v = w.judge(0);
  for (let k = 0; t < (o.seconds ?? 45); k++) {
    const dt = o.step_s * (1 + o.jitter * gaussian(3, k));
    const a = t;
    t += dt;
    for (; x + H <= t + 1e-12; x += H) {
      energy += truth(x + H / 2, a, dt) * H;
      if (x + H >= update) {
        held = energy;
        update += 0.1;
      }
      if (x + H >= read) {
        counter.push({ t: x + H, j: held });
        if (o.counter) w.sample('nvml:0', x + H, null, held * 1000);
        read = o.read_s === 'step' ? Infinity : read + o.read_s;
      }
      if (x + H >= power) {
        w.sample('nvml:0', x + H, truth(x + H, a, dt) * (1 + 0.005 * gaussian(4, j++)));
        power += 0.1;
      }
    }
    steps.push({ a, b: t });
    if (o.read_s === 'step') read = t + 0.005;
    w.step(t, 1000, dt);
    v = w.judge(t);
    if (v.stop) break;
  }
  return { stop: v.stop ? t : null, verdict: v, perStepCi: perStepCounterCi(counter, steps) };
}

/** The per-step rule: each step's mean power from the counter readings around its edges, then unweighted batch means. */
function perStepCounterCi(counter: readonly { t: number; j: number }[], steps: readonly { a: number; b: number }[]): number | null {
  const at = (q: number) => {
    const i = counter.findIndex((c) => c.t > q);
    if (i <= 0) return null;
    const p = counter[i - 1]!;
    const n = counter[i]!;
    return p.j + ((n.j - p.j) * (q - p.t)) / (n.t - p.t);
  };
  const per = steps.flatMap(({ a, b }) => {
    const ea = at(a);
    const eb = at(b);
    return ea === null || eb === null ? [] : [(eb - ea) / (b - a)];
  });
  return batchMeansHalfWidth(per);
}

describe('adaptive window: each CI batch judged on its own counter energy over whole steps', () => {
  it('the LLM on the H200 (0.1 s steps, counter read every 0.1 s in readings of its own): settles near the minimum window', () => {
    const r = nvmlTrace({ step_s: 0.101, jitter: 0.02, drift: 0, read_s: 0.1, counter: true });
    expect(r.stop).not.toBeNull();
    expect(r.stop!).toBeLessThan(rule.min_s + 2);
    expect(r.verdict.power_ci!).toBeLessThanOrEqual(rule.ci_target);
    // Without the counter (the run on the card): the power readings strobe the steps' swing and the window runs out.
    const without = nvmlTrace({ step_s: 0.101, jitter: 0.02, drift: 0, read_s: 0.1, counter: false });
    expect(without.stop).toBeNull();
    expect(without.verdict.power_ci!).toBeGreaterThan(0.05);
  });

  it('steps of uneven length, the counter read after each: per-batch energy narrows the CI that unweighted per-step means widen', () => {
    // Each step's own counter delta holds 0, 1 or 2 whole 100 ms updates; weighing those equally whatever the step's
    // length does not add up to the batch's energy, a batch's own delta does.
    const r = nvmlTrace({ step_s: 0.101, jitter: 0.3, drift: 0, read_s: 'step', counter: true });
    expect(r.verdict.power_ci!).toBeLessThanOrEqual(rule.ci_target);
    expect(r.perStepCi!).toBeGreaterThan(2 * rule.ci_target);
  });

  it('a genuine drift of the mean power (0.2 %/s) is never settled, steady power at the same counter phase is', () => {
    for (const read_s of [0.1, 0.1037, 'step'] as const) {
      const drifting = nvmlTrace({ step_s: 0.101, jitter: 0.02, drift: 0.002, read_s, counter: true });
      expect(drifting.stop, `counter read every ${read_s}`).toBeNull();
      expect(drifting.verdict.steady, `counter read every ${read_s}`).toBe(false);
      const steady = nvmlTrace({ step_s: 0.101, jitter: 0.02, drift: 0, read_s, counter: true });
      expect(steady.stop, `counter read every ${read_s}`).not.toBeNull();
    }
  });
});

describe('RunProgress with a windowDone hook', () => {
  const lines = (n: number, dt: number) => {
    const out = [formatProtocolEvent({ ev: 'start', t: 0, workload: 'w', units: 'images', gpus: 1, batch_size: 1 })];
    for (let k = 1; k <= n; k++) out.push(formatProtocolEvent({ ev: 'step', t: k * dt, n: k, units: 10, dt }));
    return out;
  };
  it('ends the window at the step the hook says, inside the plan window', () => {
    const p = new RunProgress({ warmup: { steps: 5 }, window: { seconds: 100 }, windowDone: (s) => s.n >= 25 });
    const signals = lines(200, 1).flatMap((l) => p.pushLine(l));
    const done = signals.find((s) => s.type === 'window-complete');
    expect(done).toMatchObject({ window: { start: 5, end: 25, steps: 20, seconds: 20 } });
  });
  it('the plan window stays the upper bound when the hook never says done', () => {
    const p = new RunProgress({ warmup: { steps: 5 }, window: { seconds: 30 }, windowDone: () => false });
    const signals = lines(200, 1).flatMap((l) => p.pushLine(l));
    expect(signals.find((s) => s.type === 'window-complete')).toMatchObject({ window: { start: 5, end: 35 } });
  });
});
