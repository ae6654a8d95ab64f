// Comparison of two or more sweeps on the same workload (e.g. H100 vs H200, two software versions), by cap.
import { SELECTORS, type AnalysisGroup, type Comparison, type ComparisonEntry } from '../../shared/analysis';
import { paretoFront } from './pareto';

export interface ComparedSweep {
  label: string;
  group: AnalysisGroup;
}

const rel = (v: number | null, base: number | null) => (v === null || base === null || base === 0 ? null : (v - base) / base);

/**
 * Aligns the sweeps by cap (the union of their caps; a cap one sweep lacks is null there) and gives each value
 * relative to the baseline sweep (index `baseline`, default the first). The Pareto front spans all sweeps' caps.
 */
export function compareSweeps(sweeps: readonly ComparedSweep[], baseline = 0): Comparison {
  if (sweeps.length === 0) throw new RangeError('compareSweeps: nothing to compare');
  const base = sweeps[Math.min(Math.max(0, baseline), sweeps.length - 1)]!;
  const notes: string[] = [];
  const workloads = [...new Set(sweeps.map((s) => s.group.workload))];
  if (workloads.length > 1) notes.push(`different workloads compared: ${workloads.join(', ')}`);
  const units = [...new Set(sweeps.map((s) => s.group.units ?? 'unknown'))];
  if (units.length > 1) notes.push(`different work units: ${units.join(', ')}; relative differences are not meaningful`);
  const caps = [...new Set(sweeps.flatMap((s) => s.group.caps.map((c) => c.cap_w)))].sort((a, b) => a - b);
  const rows = caps.map((cap_w) => {
    const bp = base.group.caps.find((c) => c.cap_w === cap_w);
    const entries: ComparisonEntry[] = sweeps.map((s) => {
      const p = s.group.caps.find((c) => c.cap_w === cap_w);
      const t = p?.throughput.mean ?? null;
      const e = p?.efficiency.mean ?? null;
      const w = p?.power_w.mean ?? null;
      return {
        label: s.label,
        throughput: t,
        efficiency: e,
        power_w: w,
        rel_throughput: rel(t, bp?.throughput.mean ?? null),
        rel_efficiency: rel(e, bp?.efficiency.mean ?? null),
        rel_power: rel(w, bp?.power_w.mean ?? null),
        eligible: p?.eligible ?? false,
      };
    });
    return { cap_w, entries };
  });
  const missing = caps.filter((c) => sweeps.some((s) => !s.group.caps.some((p) => p.cap_w === c)));
  if (missing.length) notes.push(`caps not measured in every sweep: ${missing.join(', ')} W`);
  const pareto = paretoFront(
    sweeps.flatMap((s) =>
      s.group.caps.filter((c) => c.eligible).map((c) => ({ label: `${s.label} @ ${c.cap_w} W`, cap_w: c.cap_w, throughput: c.throughput.mean, efficiency: c.efficiency.mean })),
    ),
  );
  return {
    workload: base.group.workload,
    baseline: base.label,
    sweeps: sweeps.map((s) => ({
      label: s.label,
      device_model: s.group.device_model,
      best: Object.fromEntries(SELECTORS.map((sel) => [sel, s.group.optima[sel].cap_w])),
      peak_efficiency: s.group.optima['max-efficiency'].value,
    })),
    rows,
    pareto,
    notes,
  };
}
