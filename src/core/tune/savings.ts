// What holding a cap saved: the job's measured energy against the energy the same work would have taken at the
// default limit, estimated from the profile's visits at the default limit (energy per unit, with its 95 % interval).
import { describe } from '../analysis/stats';
import type { TuneVisit } from './search';

export interface SavingsInput {
  visits: readonly TuneVisit[];
  default_w: number;
  /** GPUs of the job. */
  gpus: number;
  /** GPU energy the whole job used, measured (J). */
  job_energy_j: number;
  /** GPU energy measured before profiling began (start-up and warm-up, at the default limit either way). */
  before_energy_j: number;
  /** Units the job did from the first visit to its end (all GPUs). */
  units_after: number;
  /** Units per second per GPU measured while the cap was held (null where nothing was held long enough). */
  held_throughput: number | null;
}

export interface Estimate {
  value: number;
  /** 95 % interval. */
  ci: [number, number];
}

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
}

export function estimateSavings(s: SavingsInput): Savings {
  const at = s.visits.filter((v) => v.cap_w === s.default_w && v.steady);
  if (at.length < 2) return { default_energy_j: null, saved_j: null, saved_fraction: null, slowdown: null, note: `fewer than two steady visits at the default limit ${s.default_w} W: no estimate of the saving` };
  const jpu = describe(at.map((v) => v.power_w / v.throughput));
  const thr = describe(at.map((v) => v.throughput));
  const m = jpu.mean!;
  const lo = jpu.ci?.lo ?? m;
  const hi = jpu.ci?.hi ?? m;
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
  return { default_energy_j: def, saved_j: saved, saved_fraction: frac, slowdown, note: `from ${at.length} visits at the default limit ${s.default_w} W (energy per unit ${m.toPrecision(4)} J, 95 % interval); the job's own energy is measured` };
}
