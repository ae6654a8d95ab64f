// One visit of a cap inside the running job: which of its steps count, whether they have settled, and the rate.
import { detectSteadyState } from '../analysis/steady-state';

/** A unit of progress the job reported: `units` of work done in the `dt` seconds ending at `t` (backend time). */
export interface ProgressStep {
  t: number;
  units: number;
  dt: number;
}

export interface VisitRules {
  /** Seconds after the cap was set whose steps are left out: the card's controller and clocks settle first. */
  settle_s: number;
  /** Fewest counted steps: enough points for the steady-state test (MSER-batch, 10 batches). */
  min_steps: number;
  /** MSER batch size for the steady-state test. */
  batch: number;
  /** A visit that has not settled after this long (seconds since the cap was set) is ended as unsteady. */
  max_s: number;
}

export const DEFAULT_VISIT_RULES: VisitRules = { settle_s: 2, min_steps: 20, batch: 2, max_s: 120 };

export interface VisitMeasure {
  /** Enough settled steps have been seen: the visit may end. */
  ready: boolean;
  /** The steady-state test passed on the counted steps. */
  steady: boolean;
  /** Counted window: from the start of the first counted step to the end of the last. */
  start: number;
  end: number;
  units: number;
  steps: number;
  /** Units per second over the window (all GPUs). */
  rate: number;
  /**
   * Relative standard error of the window's time per unit from its batches (null with fewer than two): the
   * step-to-step noise inside one visit, which the spread of a cap's few visits estimates on one or two degrees of
   * freedom only.
   */
  rate_rse: number | null;
  /** Degrees of freedom of rate_rse (batches - 1). */
  rate_df: number;
  reason: string | null;
}

/** Batches of at least `batch` consecutive steps, at most this many: enough degrees of freedom, batch means that absorb short correlation. */
const SE_BATCHES = 10;

/**
 * Relative standard error of sum(dt) / sum(units) over `steps`, from contiguous batches (the ratio estimator's
 * linearised variance): batching keeps correlated neighbouring steps from passing for independent ones.
 */
export function timePerUnitRse(steps: readonly ProgressStep[], batch: number): { rse: number | null; df: number } {
  const m = Math.min(SE_BATCHES, Math.floor(steps.length / Math.max(1, batch)));
  if (m < 2) return { rse: null, df: 0 };
  const per = Math.floor(steps.length / m);
  // The first steps go uncounted in the batches when n is not a multiple of m; the ratio is over the batched steps.
  const bs = Array.from({ length: m }, (_, i) => steps.slice(steps.length - (m - i) * per, steps.length - (m - i - 1) * per));
  const dt = bs.map((b) => b.reduce((a, s) => a + s.dt, 0));
  const u = bs.map((b) => b.reduce((a, s) => a + s.units, 0));
  const r = dt.reduce((a, x) => a + x, 0) / u.reduce((a, x) => a + x, 0);
  const ubar = u.reduce((a, x) => a + x, 0) / m;
  const v = dt.reduce((a, d, i) => a + (d - r * u[i]!) ** 2, 0) / (m * (m - 1) * ubar * ubar);
  return { rse: Math.sqrt(v) / r, df: m - 1 };
}

/**
 * Measures a visit that began (its cap set) at `capSetT`: the steps that start after the settling time, then the
 * steady-state test (MSER) on their per-step rates; what it truncates is left out too. Ready once at least
 * `min_steps` steps remain after the truncation.
 */
export function measureVisit(steps: readonly ProgressStep[], capSetT: number, rules: VisitRules = DEFAULT_VISIT_RULES): VisitMeasure {
  const from = capSetT + rules.settle_s;
  const counted = steps.filter((s) => s.t - s.dt >= from - 1e-9 && s.dt > 0);
  const empty: VisitMeasure = { ready: false, steady: false, start: from, end: from, units: 0, steps: 0, rate: 0, rate_rse: null, rate_df: 0, reason: `${counted.length} of ${rules.min_steps} steps so far` };
  if (counted.length < rules.min_steps) return empty;
  const ss = detectSteadyState(
    counted.map((s) => s.t),
    counted.map((s) => s.units / s.dt),
    { batch: rules.batch, min_batches: Math.max(2, Math.floor(rules.min_steps / rules.batch)) },
  );
  const kept = ss.reached && ss.truncate_index !== null ? counted.slice(ss.truncate_index) : counted;
  const units = kept.reduce((a, s) => a + s.units, 0);
  const start = kept[0]!.t - kept[0]!.dt;
  const end = kept[kept.length - 1]!.t;
  const rate = end > start ? units / (end - start) : 0;
  const ready = ss.reached && kept.length >= rules.min_steps;
  const se = timePerUnitRse(kept, rules.batch);
  return { ready, steady: ss.reached, start, end, units, steps: kept.length, rate, rate_rse: se.rse, rate_df: se.df, reason: ready ? null : ss.reached ? `${kept.length} of ${rules.min_steps} steady steps so far` : (ss.reason ?? 'not steady yet') };
}
