// Adaptive measurement window (plan `adaptive.window`): a run stops measuring once its throughput and power are
// steady and known to the target precision, never before the steady-state test could judge it, never after the
// plan's window.
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

/** Watches one run's window: per-step rates and each device's power readings (the widest device CI counts). */
export class AdaptiveWindow {
  private readonly stepT: number[] = [];
  private readonly rate: number[] = [];
  private readonly power = new Map<string, { t: number[]; w: number[] }>();

  constructor(
    private readonly rule: WindowRule,
    /** Window start (warm-up end), on the samples' clock. */
    private readonly start: number,
  ) {}

  step(t: number, units: number, dt: number): void {
    if (t > this.start && dt > 0 && Number.isFinite(units)) {
      this.stepT.push(t);
      this.rate.push(units / dt);
    }
  }

  sample(device: string, t: number, power_w: number | null): void {
    if (power_w === null || !Number.isFinite(power_w) || t < this.start) return;
    let s = this.power.get(device);
    if (!s) this.power.set(device, (s = { t: [], w: [] }));
    s.t.push(t);
    s.w.push(power_w);
  }

  /** Whether the window may end at `t` (the last step's time). */
  judge(t: number): WindowVerdict {
    const elapsed_s = t - this.start;
    const throughput_ci = batchMeansHalfWidth(this.rate);
    const devices = [...this.power.values()];
    const cis = devices.map((d) => batchMeansHalfWidth(d.w));
    const power_ci = devices.length > 0 && cis.every((c) => c !== null) ? Math.max(...(cis as number[])) : null;
    const steady = throughput_ci !== null && power_ci !== null && settled(this.stepT, this.rate, this.rule.ci_target) && devices.every((d) => settled(d.t, d.w, this.rule.ci_target));
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
