// Adaptive measurement window (plan `adaptive.window`): a run stops measuring once its throughput and power are
// steady and known to the target precision, never before the steady-state test could judge it, never after the
// plan's window. Power is judged per workload step (its mean over each step's interval, from the energy counter
// where the device has one), so a swing within the step (forward, backward, optimizer) averages out instead of
// widening the CI: on a real H200 an LLM's ~0.1 s steps strobed by 0.1 s readings kept the readings' CI at 9-10 %
// with throughput's at 0.1-0.2 % (bench/results/h200-adaptive-2026-12-03.md).
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
 * Steady: the steady-state test the analysis applies (MSER-5) finds a steady state, and the fitted drift over the
 * window is within the CI target (a slow ramp can pass MSER on a short window; it cannot hide a trend).
 */
function settled(t: readonly number[], v: readonly number[], target: number): boolean {
  if (!detectSteadyState(t, v).reached) return false;
  const fit = linearFit(t, v);
  const m = mean(v as number[]);
  return fit !== null && Math.abs(m) > 0 && Math.abs(fit.slope * (t[t.length - 1]! - t[0]!)) / Math.abs(m) <= target;
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

/**
 * One device's readings and its energy so far: the energy counter's when every reading has one (it integrates the
 * true power, so a step shorter than the sampling period cannot alias), else the readings' trapezoid integral.
 */
interface DevicePower {
  t: number[];
  w: number[];
  /** Cumulative energy at each reading, J. */
  e: number[];
  counter: { first_mj: number; last_mj: number } | null;
  /** Steps judged so far (their whole interval is covered by readings), with the mean power over each. */
  stepsDone: number;
  stepT: number[];
  stepW: number[];
  cursor: number;
}

/** Watches one run's window: per-step rates and each device's power readings (the widest device CI counts). */
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

  /** One power reading, with the device's energy counter (mJ) where it has one. */
  sample(device: string, t: number, power_w: number | null, energy_mj: number | null = null): void {
    if (power_w === null || !Number.isFinite(power_w) || t < this.start) return;
    let s = this.power.get(device);
    const mj = energy_mj !== null && Number.isFinite(energy_mj) ? energy_mj : null;
    if (!s) {
      this.power.set(device, (s = { t: [], w: [], e: [], counter: mj === null ? null : { first_mj: mj, last_mj: mj }, stepsDone: 0, stepT: [], stepW: [], cursor: 0 }));
    } else if (s.counter && (mj === null || mj < s.counter.last_mj)) {
      // A reading without the counter, or a counter that went back (reset): integrate the power readings instead.
      s.counter = null;
      s.e = s.t.map(() => 0);
      for (let k = 1; k < s.t.length; k++) s.e[k] = s.e[k - 1]! + ((s.w[k - 1]! + s.w[k]!) / 2) * (s.t[k]! - s.t[k - 1]!);
    }
    const n = s.t.length;
    if (s.counter) s.counter.last_mj = mj!;
    s.e.push(s.counter ? (mj! - s.counter.first_mj) / 1000 : n === 0 ? 0 : s.e[n - 1]! + ((s.w[n - 1]! + power_w) / 2) * (t - s.t[n - 1]!));
    s.t.push(t);
    s.w.push(power_w);
  }

  /**
   * The power series the device is judged on: its mean over each whole step once STEADY_MIN_POINTS steps are
   * covered by readings (batches of them then span whole steps), its raw readings before that.
   */
  private powerSeries(d: DevicePower): { t: readonly number[]; w: readonly number[] } {
    const last = d.t[d.t.length - 1]!;
    for (; d.stepsDone < this.stepT.length && this.stepT[d.stepsDone]! <= last; d.stepsDone++) {
      const a = this.stepStart[d.stepsDone]!;
      const b = this.stepT[d.stepsDone]!;
      const from = energyAt(d.t, d.e, a, d.cursor);
      const to = energyAt(d.t, d.e, b, from.i);
      d.cursor = from.i;
      // A step that began before the first reading is left out rather than judged on part of itself.
      if (from.j === null || to.j === null || !(b > a)) continue;
      d.stepT.push(b);
      d.stepW.push((to.j - from.j) / (b - a));
    }
    return d.stepW.length >= STEADY_MIN_POINTS ? { t: d.stepT, w: d.stepW } : d;
  }

  /** Whether the window may end at `t` (the last step's time). */
  judge(t: number): WindowVerdict {
    const elapsed_s = t - this.start;
    const throughput_ci = batchMeansHalfWidth(this.rate);
    const devices = [...this.power.values()];
    // The readings' own floor stays: per-step means interpolated from fewer readings than the test needs say little.
    const series = devices.map((d) => (d.w.length >= STEADY_MIN_POINTS ? this.powerSeries(d) : null));
    const cis = series.map((d) => (d === null ? null : batchMeansHalfWidth(d.w)));
    const power_ci = devices.length > 0 && cis.every((c) => c !== null) ? Math.max(...(cis as number[])) : null;
    const steady = throughput_ci !== null && power_ci !== null && settled(this.stepT, this.rate, this.rule.ci_target) && series.every((d) => d !== null && settled(d.t, d.w, this.rule.ci_target));
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
