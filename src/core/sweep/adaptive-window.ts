// Adaptive measurement window (plan `adaptive.window`): a run stops measuring once its throughput and power are
// steady and known to the target precision, never before the steady-state test could judge it, never after the
// plan's window. Power is judged over whole workload steps (each CI batch on its own energy from its first step's
// start to its last step's end, from the energy counter where the device has one), so a swing within the step
// (forward, backward, optimizer) averages out instead of widening the CI: on a real H200 an LLM's ~0.1 s steps
// strobed by 0.1 s readings kept the readings' CI at 9-10 % with throughput's at 0.1-0.2 %
// (bench/results/h200-adaptive-2026-12-03.md).
import { detectSteadyState } from '../analysis/steady-state';
import { linearFit, mean, sampleSd, tQuantile } from '../analysis/stats';

/** MSER-5 with its 10-batch minimum (steady-state.ts) needs 50 points of each series before it can say "steady". */
export const STEADY_MIN_POINTS = 50;
/** Batch means for the CI: consecutive readings are correlated, batches of them far less. */
const CI_BATCHES = 10;

export interface WindowRule {
  /** Relative 95 % CI half-width both throughput and power must reach. */
  ci_target: number;
  /** Shortest window, s. */
  min_s: number;
}

export interface WindowVerdict {
  stop: boolean;
  /** Seconds measured so far. */
  elapsed_s: number;
  /** Relative CI half-widths; null until there are enough points. */
  throughput_ci: number | null;
  power_ci: number | null;
  steady: boolean;
  /** Why it goes on, or why it stopped ("steady and within 1 %"). */
  reason: string;
}

/** Relative 95 % half-width of the mean from CI_BATCHES batch means; null with fewer than STEADY_MIN_POINTS points. */
export function batchMeansHalfWidth(values: readonly number[]): number | null {
  if (values.length < STEADY_MIN_POINTS) return null;
  const size = Math.floor(values.length / CI_BATCHES);
  const means: number[] = [];
  // The newest points fill whole batches; an older remainder is left out.
  const from = values.length - size * CI_BATCHES;
  for (let b = 0; b < CI_BATCHES; b++) means.push(mean(values.slice(from + b * size, from + (b + 1) * size)));
  const m = mean(means);
  if (!(Math.abs(m) > 0)) return null;
  return (tQuantile(0.975, CI_BATCHES - 1) * sampleSd(means)) / Math.sqrt(CI_BATCHES) / Math.abs(m);
}

/**
 * Within the target: the fitted drift over `span` s (default the points' own), relative to the mean (a slow ramp
 * can pass MSER on a short window).
 */
function flat(t: readonly number[], v: readonly number[], target: number, span = t[t.length - 1]! - t[0]!): boolean {
  const fit = linearFit(t, v);
  const m = mean(v as number[]);
  return fit !== null && Math.abs(m) > 0 && Math.abs(fit.slope * span) / Math.abs(m) <= target;
}

/** Steady: the steady-state test the analysis applies (MSER-5) finds a steady state, and there is no drift. */
function settled(t: readonly number[], v: readonly number[], target: number): boolean {
  return detectSteadyState(t, v).reached && flat(t, v, target);
}

/** Linear interpolation of the cumulative energy e (J) at time x, searching from index `from`; null outside its span. */
function energyAt(t: readonly number[], e: readonly number[], x: number, from: number): { j: number | null; i: number } {
  if (t.length === 0 || x < t[0]! || x > t[t.length - 1]!) return { j: null, i: from };
  let i = Math.min(from, t.length - 1);
  while (i > 0 && t[i]! > x) i--;
  while (i + 1 < t.length && t[i + 1]! <= x) i++;
  if (i + 1 >= t.length || t[i + 1]! === t[i]!) return { j: e[i]!, i };
  return { j: e[i]! + ((e[i + 1]! - e[i]!) * (x - t[i]!)) / (t[i + 1]! - t[i]!), i };
}

/** Cumulative energy (J) at each point of one channel: the energy counter's readings or the power readings' integral. */
interface EnergySeries {
  t: number[];
  e: number[];
}

/**
 * One device's power readings and energy-counter readings. The counter (read beside the sampler, not in its
 * readings on NVML) integrates the true power, so a step shorter than the sampling period cannot alias; it is the
 * channel judged once it has readings, the power readings' trapezoid integral where it has none or was reset.
 */
interface DevicePower {
  readings: EnergySeries & { w: number[] };
  counter: (EnergySeries & { first_mj: number; last_mj: number }) | null;
  counterReset: boolean;
  /** Steps judged so far on `source` (their whole interval is covered by it), with the mean power over each. */
  stepsDone: number;
  stepStart: number[];
  stepT: number[];
  stepW: number[];
  cursor: number;
  source: 'counter' | 'readings' | null;
}

/** The batch-means CI and drift of a device's power, with each batch judged on its own energy over whole steps. */
interface BatchPower {
  /** Batch mid-times and mean powers (energy over the batch / its duration), oldest first. */
  t: number[];
  w: number[];
  /** From the first batch's start to the last one's end, s. */
  span: number;
  ci: number | null;
}

/**
 * Power of CI_BATCHES batches of whole steps, newest first filled like batchMeansHalfWidth's, each the energy from
 * its first step's start to its last step's end over that span. A batch's energy is two readings of the channel
 * whatever its steps' lengths, so counter updates that fall unevenly on ~0.1 s steps (NVML's every 100 ms) no
 * longer weigh as whole per-step means; only the batch edges' quantisation is left, shrinking as batches lengthen.
 */
function batchPower(d: DevicePower): BatchPower | null {
  const n = d.stepT.length;
  if (n < STEADY_MIN_POINTS) return null;
  const src = d.source === 'counter' ? d.counter! : d.readings;
  const size = Math.floor(n / CI_BATCHES);
  const from = n - size * CI_BATCHES;
  const t: number[] = [];
  const w: number[] = [];
  for (let b = 0; b < CI_BATCHES; b++) {
    const a = d.stepStart[from + b * size]!;
    const z = d.stepT[from + (b + 1) * size - 1]!;
    const ea = energyAt(src.t, src.e, a, 0).j;
    const ez = energyAt(src.t, src.e, z, 0).j;
    if (ea === null || ez === null || !(z > a)) return null;
    t.push((a + z) / 2);
    w.push((ez - ea) / (z - a));
  }
  const m = mean(w);
  const ci = Math.abs(m) > 0 ? (tQuantile(0.975, CI_BATCHES - 1) * sampleSd(w)) / Math.sqrt(CI_BATCHES) / Math.abs(m) : null;
  return { t, w, span: d.stepT[n - 1]! - d.stepStart[from]!, ci };
}

/** Watches one run's window: per-step rates and each device's power (the widest device CI counts). */
export class AdaptiveWindow {
  private readonly stepT: number[] = [];
  private readonly stepStart: number[] = [];
  private readonly rate: number[] = [];
  private readonly power = new Map<string, DevicePower>();

  constructor(
    private readonly rule: WindowRule,
    /** Window start (warm-up end), on the samples' clock. */
    private readonly start: number,
  ) {}

  step(t: number, units: number, dt: number): void {
    if (t > this.start && dt > 0 && Number.isFinite(units)) {
      this.stepT.push(t);
      this.stepStart.push(t - dt);
      this.rate.push(units / dt);
    }
  }

  /**
   * One reading of a device: its power, its energy counter (mJ), or both. The counter may come in readings of its
   * own (power null), as the orchestrator's are.
   */
  sample(device: string, t: number, power_w: number | null, energy_mj: number | null = null): void {
    const w = power_w !== null && Number.isFinite(power_w) ? power_w : null;
    const mj = energy_mj !== null && Number.isFinite(energy_mj) ? energy_mj : null;
    if ((w === null && mj === null) || t < this.start) return;
    let s = this.power.get(device);
    if (!s) {
      s = { readings: { t: [], e: [], w: [] }, counter: null, counterReset: false, stepsDone: 0, stepStart: [], stepT: [], stepW: [], cursor: 0, source: null };
      this.power.set(device, s);
    }
    if (w !== null) {
      const r = s.readings;
      const n = r.t.length;
      if (n === 0 || t > r.t[n - 1]!) {
        r.e.push(n === 0 ? 0 : r.e[n - 1]! + ((r.w[n - 1]! + w) / 2) * (t - r.t[n - 1]!));
        r.t.push(t);
        r.w.push(w);
      }
    }
    if (mj !== null && !s.counterReset) {
      const c = s.counter;
      // A reading older than the last (two streams of the counter, the sampler's and the orchestrator's) adds nothing.
      if (!c) s.counter = { t: [t], e: [0], first_mj: mj, last_mj: mj };
      else if (t <= c.t[c.t.length - 1]!) return;
      else if (mj < c.last_mj) {
        // A counter that went back (reset): the power readings decide from here on.
        s.counterReset = true;
        s.counter = null;
      } else {
        c.last_mj = mj;
        c.t.push(t);
        c.e.push((mj - c.first_mj) / 1000);
      }
    }
  }

  /**
   * The channel a device is judged on (the counter where it has one, else the power readings) once it has
   * STEADY_MIN_POINTS readings, with its mean power over each whole step it covers; null before.
   */
  private devicePower(d: DevicePower): DevicePower | null {
    const source = d.counter ? 'counter' : 'readings';
    const src = source === 'counter' ? d.counter! : d.readings;
    if (src.t.length < STEADY_MIN_POINTS) return null;
    if (d.source !== source) Object.assign(d, { source, stepsDone: 0, stepStart: [], stepT: [], stepW: [], cursor: 0 });
    const last = src.t[src.t.length - 1]!;
    for (; d.stepsDone < this.stepT.length && this.stepT[d.stepsDone]! <= last; d.stepsDone++) {
      const a = this.stepStart[d.stepsDone]!;
      const b = this.stepT[d.stepsDone]!;
      const from = energyAt(src.t, src.e, a, d.cursor);
      const to = energyAt(src.t, src.e, b, from.i);
      d.cursor = from.i;
      // A step that began before the first reading is left out rather than judged on part of itself.
      if (from.j === null || to.j === null || !(b > a)) continue;
      d.stepStart.push(a);
      d.stepT.push(b);
      d.stepW.push((to.j - from.j) / (b - a));
    }
    return d;
  }

/** Whether the window may end at `t` (the last step's time). */
  judge(t: number): WindowVerdict {
    const elapsed_s = t - this.start;
    const throughput_ci = batchMeansHalfWidth(this.rate);
    const devices = [...this.power.values()].map((d) => this.devicePower(d));
    const batches = devices.map((d) => (d === null ? null : batchPower(d)));
    const cis = batches.map((b) => b?.ci ?? null);
    const power_ci = devices.length > 0 && cis.every((c) => c !== null) ? Math.max(...(cis as number[])) : null;
    // Power: MSER on the per-step means (fine-grained, for a warm-up transient), the drift on the batch powers (each
    // per-step mean carries a whole counter update of quantisation; a fit through them would wander by more).
    const steady =
      throughput_ci !== null &&
      power_ci !== null &&
      settled(this.stepT, this.rate, this.rule.ci_target) &&
      devices.every((d, k) => d !== null && detectSteadyState(d.stepT, d.stepW).reached && flat(batches[k]!.t, batches[k]!.w, this.rule.ci_target, batches[k]!.span));
    const base = { elapsed_s, throughput_ci, power_ci, steady };
    const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
    if (elapsed_s < this.rule.min_s) return { ...base, stop: false, reason: `shorter than the minimum window (${this.rule.min_s} s)` };
    if (throughput_ci === null || power_ci === null) return { ...base, stop: false, reason: `fewer than ${STEADY_MIN_POINTS} steps or power samples (the steady-state test's minimum)` };
    if (throughput_ci > this.rule.ci_target || power_ci > this.rule.ci_target)
      return { ...base, stop: false, reason: `CI half-widths ${pct(throughput_ci)} (throughput), ${pct(power_ci)} (power) above the ${pct(this.rule.ci_target)} target` };
    if (!steady) return { ...base, stop: false, reason: 'throughput or power not yet steady' };
    return { ...base, stop: true, reason: `steady after ${elapsed_s.toFixed(1)} s; CI half-widths ${pct(throughput_ci)} (throughput), ${pct(power_ci)} (power) within ${pct(this.rule.ci_target)}` };
  }
}
