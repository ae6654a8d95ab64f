// What holding a cap saved: the job's measured energy against the energy the same work would have taken at the
// default limit, estimated from the profile's visits at the default limit (energy per unit, with its 95 % interval).
// The interval is for the energy the job's own remainder would have used at the default limit, so it carries
// (1) the error of the mean energy per unit at the default limit, as a one-way random-effects estimate: the larger of
// the spread of the visits (the visit-to-visit variation, on k - 1 degrees of freedom: one for the usual two visits)
// and the step-to-step noise inside them (measureVisit's rate_rse, on many more), since the spread of two visits that
// happen to agree says nothing of the noise that made each; (2) the same step noise over the remainder's length; and
// (3) the run-to-run spread of mean power: the job run at the default limit is another run, whose power differs from
// this one's (which every visit shares) by a draw no visit can show, so it enters as a measured prior, twice (the
// two runs' draws).
import { RUN_POWER_SD } from '../analysis/run-spread';
import { describe, mean, sampleSd, tQuantile } from '../analysis/stats';
import type { TuneVisit } from './search';
import type { TuneEstimate } from '../../shared/tune';

export interface SavingsInput {
  visits: readonly TuneVisit[];
  default_w: number;
  /** GPUs of the job. */
  gpus: number;
  /** GPU energy the job used up to the end of its last step, measured (J): the work the estimate prices. */
  job_energy_j: number;
  /** GPU energy measured before profiling began (start-up and warm-up, at the default limit either way). */
  before_energy_j: number;
  /** Units the job did from the first visit to its end (all GPUs). */
  units_after: number;
  /** Units per second per GPU measured while the cap was held (null where nothing was held long enough). */
  held_throughput: number | null;
  /** Run-to-run spread (sd, relative) of mean power; absent: RUN_POWER_SD, the measured prior. */
  run_power_sd?: number;
}

/** A figure with its 95 % interval (the stored outcome's type). */
export type Estimate = TuneEstimate;

export interface Savings {
  /** Energy the job would have used at the default limit. */
  default_energy_j: Estimate | null;
  /** default_energy - job energy: positive is saved. */
  saved_j: Estimate | null;
  /** saved / default energy. */
  saved_fraction: Estimate | null;
  /** Time per unit at the held cap against the default limit, - 1: positive is slower. */
  slowdown: Estimate | null;
  note: string | null;
  /** What the interval of the energy per unit at the default limit is made of (absent where there is no estimate). */
  default_interval?: DefaultInterval;
}

export interface DefaultInterval {
  /** Energy per unit at the default limit (J, all GPUs' units), the mean of its visits. */
  energy_per_unit_j: number;
  /** Variance of that mean from the visits' spread, and from the noise inside them (null without step data). */
  between_var: number;
  within_var: number | null;
  /** Variance of the remainder's realised energy per unit about the true mean (step noise over its length). */
  remainder_var: number | null;
  /** Variance, per unit, of the energy from the two runs' power draws (this run's and the default-limit run's). */
  run_var: number;
  /** The run-to-run spread of mean power it assumes (sd, relative). */
  run_power_sd: number;
  /** Which of between/within the mean's variance took, the degrees of freedom and t quantile of the interval. */
  source: 'between' | 'within';
  /** The interval's variance: the mean's (the source's) plus the remainder's and the runs'. */
  variance: number;
  df: number;
  t: number;
}

/**
 * The default limit's energy per unit with the interval described in the file's head; null below two visits.
 * `beforeJ` is the energy before profiling, which the runs' draws scale too.
 */
export function defaultEnergyPerUnit(at: readonly TuneVisit[], unitsAfter: number, gpus: number, beforeJ = 0, runPowerSd = RUN_POWER_SD): DefaultInterval | null {
  const k = at.length;
  if (k < 2) return null;
  const jpu = at.map((v) => v.power_w / v.throughput);
  const m = mean(jpu);
  const between = sampleSd(jpu) ** 2 / k;
  const withStep = at.every((v) => typeof v.rate_rse === 'number' && (v.rate_df ?? 0) > 0);
  // Variance of each visit's mean from its own steps, J^2 per unit^2.
  const wv = withStep ? at.map((v, i) => (jpu[i]! * v.rate_rse!) ** 2) : null;
  const within = wv ? wv.reduce((a, x) => a + x, 0) / (k * k) : null;
  const withinDf = wv ? within! ** 2 / wv.reduce((a, x, i) => a + (x / (k * k)) ** 2 / at[i]!.rate_df!, 0) : 0;
  const useWithin = within !== null && within > between;
  const meanVar = useWithin ? within! : between;
  const meanDf = useWithin ? withinDf : k - 1;
  // The remainder runs unitsAfter / gpus / throughput seconds; a mean's variance over a stretch goes as 1 / its length.
  let remainderVar: number | null = null;
  if (wv) {
    const perSecond = mean(wv.map((x, i) => x * (at[i]!.end - at[i]!.start)));
    const thr = mean(at.map((v) => v.throughput));
    const seconds = unitsAfter / (gpus * thr);
    remainderVar = seconds > 0 ? perSecond / seconds : null;
  }
  // Both runs' draws scale the whole priced energy (before + unitsAfter x m); per unit of the remainder.
  const runVar = unitsAfter > 0 ? 2 * (runPowerSd * (beforeJ / unitsAfter + m)) ** 2 : 0;
  const total = meanVar + (remainderVar ?? 0) + runVar;
  // Welch-Satterthwaite for the sum; the remainder's part shares the within-visit degrees of freedom, the prior has
  // no sampling error (infinite degrees of freedom).
  const sampled = meanVar ** 2 / meanDf + (remainderVar ? remainderVar ** 2 / withinDf : 0);
  const df = sampled > 0 ? total ** 2 / sampled : meanDf;
  const t = tQuantile(0.975, df);
  return { energy_per_unit_j: m, between_var: between, within_var: within, remainder_var: remainderVar, run_var: runVar, run_power_sd: runPowerSd, source: useWithin ? 'within' : 'between', variance: total, df, t };
}

export function estimateSavings(s: SavingsInput): Savings {
  const at = s.visits.filter((v) => v.cap_w === s.default_w && v.steady);
  if (at.length < 2) return { default_energy_j: null, saved_j: null, saved_fraction: null, slowdown: null, note: `fewer than two steady visits at the default limit ${s.default_w} W: no estimate of the saving` };
  const d = defaultEnergyPerUnit(at, s.units_after, s.gpus, s.before_energy_j, s.run_power_sd)!;
  const thr = describe(at.map((v) => v.throughput));
  const m = d.energy_per_unit_j;
  const half = d.t * Math.sqrt(d.variance);
  const lo = m - half;
  const hi = m + half;
  const e = (x: number) => s.before_energy_j + s.units_after * x;
  const def: Estimate = { value: e(m), ci: [e(lo), e(hi)] };
  const saved: Estimate = { value: def.value - s.job_energy_j, ci: [def.ci[0] - s.job_energy_j, def.ci[1] - s.job_energy_j] };
  const frac: Estimate = { value: saved.value / def.value, ci: [1 - s.job_energy_j / def.ci[0], 1 - s.job_energy_j / def.ci[1]] };
  let slowdown: Estimate | null = null;
  if (s.held_throughput !== null && s.held_throughput > 0) {
    const h = s.held_throughput;
    const t = thr.mean!;
    slowdown = { value: t / h - 1, ci: [(thr.ci?.lo ?? t) / h - 1, (thr.ci?.hi ?? t) / h - 1] };
  }
  const why = d.source === 'within' ? 'the noise inside the visits, which their spread understates' : 'the spread of the visits';
  return {
    default_energy_j: def,
    saved_j: saved,
    saved_fraction: frac,
    slowdown,
    note: `from ${at.length} visits at the default limit ${s.default_w} W (energy per unit ${m.toPrecision(4)} J, 95 % interval from ${why}${d.remainder_var !== null ? ", the remainder's own step noise" : ''}${d.run_var > 0 ? ` and a run-to-run power spread of ${(d.run_power_sd * 100).toFixed(2)} %` : ''}, ${d.df.toFixed(1)} df); the job's own energy is measured, to its last step`,
    default_interval: d,
  };
}
