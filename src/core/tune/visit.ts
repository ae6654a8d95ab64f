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
  reason: string | null;
}

/**
 * Measures a visit that began (its cap set) at `capSetT`: the steps that start after the settling time, then the
 * steady-state test (MSER) on their per-step rates; what it truncates is left out too. Ready once at least
 * `min_steps` steps remain after the truncation.
 */
export function measureVisit(steps: readonly ProgressStep[], capSetT: number, rules: VisitRules = DEFAULT_VISIT_RULES): VisitMeasure {
  const from = capSetT + rules.settle_s;
  const counted = steps.filter((s) => s.t - s.dt >= from - 1e-9 && s.dt > 0);
  const empty: VisitMeasure = { ready: false, steady: false, start: from, end: from, units: 0, steps: 0, rate: 0, reason: `${counted.length} of ${rules.min_steps} steps so far` };
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
  return { ready, steady: ss.reached, start, end, units, steps: kept.length, rate, reason: ready ? null : ss.reached ? `${kept.length} of ${rules.min_steps} steady steps so far` : (ss.reason ?? 'not steady yet') };
}
