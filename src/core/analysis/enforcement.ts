// Was the cap enforced? Requested cap vs measured power (mean, p95, p99) and the limit the device reported.
import type { AnalysisFlag, Enforcement } from '../../shared/analysis';
import { percentile } from './stats';

export interface EnforcementOptions {
  /** Mean power above cap * (1 + tol_frac) + tol_w: not enforced. Defaults 0.05 and 5 W. */
  tol_frac?: number;
  tol_w?: number;
  /** p99 above cap * (1 + spike_frac) + tol_w: a warning flag only (short spikes are normal). Default 0.10. */
  spike_frac?: number;
  /** Reported limit differing from the request by more than max(limit_tol_w, 0.5 %): not enforced. Default 1 W. */
  limit_tol_w?: number;
}

export interface DevicePower {
  device_id: string;
  /** Power readings inside the window (instant preferred), W. */
  powers: readonly number[];
  /** Energy-based mean power over the window, W (null: use the mean of the readings). */
  mean_w: number | null;
  /** Limit the device reported (enforced limit), W. */
  limit_w: number | null;
}

/** Checks one run (all its GPUs). A run is not enforced when any GPU is not. */
export function checkEnforcement(cap_w: number, devices: readonly DevicePower[], enforcedLimitW: number | null, opts: EnforcementOptions = {}): Enforcement {
  const tolFrac = opts.tol_frac ?? 0.05;
  const tolW = opts.tol_w ?? 5;
  const spikeFrac = opts.spike_frac ?? 0.1;
  const limitTol = Math.max(opts.limit_tol_w ?? 1, 0.005 * cap_w);
  const reasons: string[] = [];
  const flags: AnalysisFlag[] = [];
  const threshold = cap_w * (1 + tolFrac) + tolW;
  let meanMax: number | null = null;
  let p95Max: number | null = null;
  let p99Max: number | null = null;
  let judged = false;
  let enforced = true;
  for (const d of devices) {
    const pw = d.powers.filter((v) => Number.isFinite(v) && v >= 0);
    const m = d.mean_w ?? (pw.length ? pw.reduce((s, v) => s + v, 0) / pw.length : null);
    if (m === null || !Number.isFinite(m)) continue;
    judged = true;
    meanMax = Math.max(meanMax ?? -Infinity, m);
    if (pw.length) {
      const p95 = percentile(pw, 0.95);
      const p99 = percentile(pw, 0.99);
      p95Max = Math.max(p95Max ?? -Infinity, p95);
      p99Max = Math.max(p99Max ?? -Infinity, p99);
      if (p99 > cap_w * (1 + spikeFrac) + tolW && !flags.includes('spikes-above-cap')) {
        flags.push('spikes-above-cap');
        reasons.push(`${d.device_id}: p99 power ${p99.toFixed(1)} W exceeds the ${cap_w} W cap by more than ${Math.round(spikeFrac * 100)} % (spikes; not counted against enforcement)`);
      }
    }
    if (m > threshold) {
      enforced = false;
      if (!flags.includes('power-above-cap')) flags.push('power-above-cap');
      reasons.push(`${d.device_id}: mean power ${m.toFixed(1)} W above the ${cap_w} W cap (threshold ${threshold.toFixed(1)} W)`);
    }
  }
  // Reported limit: the run's record, else each device's own readings.
  const limits = enforcedLimitW !== null ? [enforcedLimitW] : devices.map((d) => d.limit_w).filter((v): v is number => v !== null && Number.isFinite(v));
  let reported: number | null = null;
  for (const l of limits) {
    if (reported === null || Math.abs(l - cap_w) > Math.abs(reported - cap_w)) reported = l;
    if (Math.abs(l - cap_w) > limitTol) {
      enforced = false;
      if (!flags.includes('limit-mismatch')) {
        flags.push('limit-mismatch');
        reasons.push(`device reports a limit of ${l} W, requested ${cap_w} W`);
      }
    }
  }
  if (limits.length) judged = true;
  if (!judged) reasons.push('no power readings or reported limit to check the cap against');
  if (judged && !enforced) flags.unshift('not-enforced');
  return {
    cap_w,
    enforced: judged ? enforced : null,
    mean_w: meanMax,
    p95_w: p95Max,
    p99_w: p99Max,
    enforced_limit_w: reported,
    reasons,
    flags,
  };
}

/** Combines the runs of one cap: not enforced if any run was not; null when no run could be judged. */
export function combineEnforcement(cap_w: number, runs: readonly Enforcement[]): Enforcement {
  const judged = runs.filter((r) => r.enforced !== null);
  const flags: AnalysisFlag[] = [];
  const reasons: string[] = [];
  for (const r of runs) {
    for (const f of r.flags) if (!flags.includes(f)) flags.push(f);
    for (const m of r.reasons) if (!reasons.includes(m)) reasons.push(m);
  }
  const avg = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null;
  };
  const max = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? Math.max(...v) : null;
  };
  const limits = runs.map((r) => r.enforced_limit_w).filter((x): x is number => x !== null);
  return {
    cap_w,
    enforced: judged.length ? judged.every((r) => r.enforced) : null,
    mean_w: avg(runs.map((r) => r.mean_w)),
    p95_w: max(runs.map((r) => r.p95_w)),
    p99_w: max(runs.map((r) => r.p99_w)),
    enforced_limit_w: limits.length ? limits.reduce((a, b) => (Math.abs(b - cap_w) > Math.abs(a - cap_w) ? b : a)) : null,
    reasons,
    flags,
  };
}
