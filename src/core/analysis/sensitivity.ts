// How the best cap moves with the node overhead (the seed paper's arbitrary 100 W): a curve and a table.
import { SELECTORS, type Selector, type Sensitivity, type SensitivityRow } from '../../shared/analysis';
import { selectOptimum, type OptimumOptions, type OptimumPoint } from './optimum';

/** A run reduced to what the overhead changes: efficiency(x) = units_total / (gpu_energy_j + x * duration_s). */
export interface OverheadRun {
  throughput: number;
  units_total: number;
  gpu_energy_j: number;
  duration_s: number;
}

export interface OverheadPoint {
  cap_w: number;
  eligible: boolean;
  excluded_reason?: string | null;
  runs: readonly OverheadRun[];
}

export interface SensitivityOptions extends OptimumOptions {
  from_w?: number;
  to_w?: number;
  step_w?: number;
  selectors?: readonly Selector[];
}

/** Optimum points at one overhead (W per node). */
export function pointsAtOverhead(points: readonly OverheadPoint[], overhead_w: number): OptimumPoint[] {
  return points.map((p) => ({
    cap_w: p.cap_w,
    eligible: p.eligible,
    excluded_reason: p.excluded_reason ?? null,
    runs: p.runs.map((r) => ({ throughput: r.throughput, efficiency: r.units_total / (r.gpu_energy_j + overhead_w * r.duration_s) })),
  }));
}

/**
 * Best cap per selector for node overheads from..to (default 0..300 W, step 5 W). Measured CPU energy is
 * replaced by the overhead here: this answers "what if the rest of the node drew x W".
 */
export function overheadSensitivity(points: readonly OverheadPoint[], opts: SensitivityOptions = {}): Sensitivity {
  const from = opts.from_w ?? 0;
  const to = Math.max(from, opts.to_w ?? 300);
  const step = opts.step_w && opts.step_w > 0 ? opts.step_w : 5;
  const selectors = opts.selectors ?? SELECTORS;
  const xs: number[] = [];
  for (let i = 0; from + i * step <= to + 1e-9; i++) xs.push(Math.round((from + i * step) * 1e6) / 1e6);
  if (xs[xs.length - 1] !== to) xs.push(to);
  const curve: SensitivityRow[] = xs.map((x) => {
    const pts = pointsAtOverhead(points, x);
    const best: Record<string, number | null> = {};
    let efficiency: number | null = null;
    for (const s of selectors) {
      const o = selectOptimum(pts, s, opts);
      best[s] = o.cap_w;
      if (s === 'max-efficiency') efficiency = o.value;
    }
    if (!selectors.includes('max-efficiency')) efficiency = selectOptimum(pts, 'max-efficiency', opts).value;
    return { overhead_w: x, best, efficiency };
  });
  const table = curve.filter((r, i) => i === 0 || i === curve.length - 1 || Math.abs(r.overhead_w / 50 - Math.round(r.overhead_w / 50)) < 1e-9);
  const changes: Sensitivity['changes'] = [];
  for (const s of selectors)
    for (let i = 1; i < curve.length; i++) {
      const a = curve[i - 1]!.best[s] ?? null;
      const b = curve[i]!.best[s] ?? null;
      if (a !== b) changes.push({ selector: s, overhead_lo: curve[i - 1]!.overhead_w, overhead_hi: curve[i]!.overhead_w, from_cap_w: a, to_cap_w: b });
    }
  return {
    from_w: from,
    to_w: to,
    step_w: step,
    curve,
    table,
    changes,
    note: 'node energy = GPU energy + overhead x duration for every overhead x (measured CPU energy, if any, is replaced by x)',
  };
}
