import type { RunRecord } from '../../shared/records';

/**
 * Results per cap from a sweep's runs, computed in the UI until the analysis engine's `analyze` method is
 * available: mean, sd and 95 % CI across repetitions; efficiency re-derived for any node overhead; best cap per
 * selector with the caps that are statistically indistinguishable from it; flags.
 */
export interface Stat {
  mean: number | null;
  sd: number | null;
  /** Half-width of the 95 % confidence interval (Student t); null with fewer than 2 values. */
  ci95: number | null;
  n: number;
}

export interface CapSummary {
  workload: string;
  cap_w: number;
  units: string | null;
  efficiency: Stat;
  throughput: Stat;
  power_w: Stat;
  /** Energy per work unit, J (1 / efficiency). */
  energy_per_unit: number | null;
  runs: RunRecord[];
  failed: number;
  flags: string[];
}

export interface Selector {
  id: 'max-efficiency' | 'max-throughput' | 'efficiency-within-slowdown';
  label: string;
  cap_w: number | null;
  value: number | null;
  /** Caps whose CI overlaps the best one's: the uncertainty of the choice. */
  range: [number, number] | null;
  note: string;
}

const T95 = [NaN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086];

export function stat(values: number[]): Stat {
  const xs = values.filter((x) => Number.isFinite(x));
  const n = xs.length;
  if (n === 0) return { mean: null, sd: null, ci95: null, n };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, sd: null, ci95: null, n };
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const t = n - 1 < T95.length ? T95[n - 1]! : 1.96;
  return { mean, sd, ci95: (t * sd) / Math.sqrt(n), n };
}

/** GPU power of a run summed over its GPUs, W, consistent with the engine's efficiency. */
function gpuPower(r: RunRecord, gpus: number, planOverhead: number): number | null {
  if (r.throughput != null && r.efficiency != null && r.efficiency > 0) return (r.throughput * gpus) / r.efficiency - planOverhead;
  if (r.mean_power_w != null) return r.mean_power_w * gpus;
  return null;
}

/** Work units per joule of node energy with `overhead` W added to the GPUs' power. */
export function efficiencyAt(r: RunRecord, gpus: number, planOverhead: number, overhead: number): number | null {
  const p = gpuPower(r, gpus, planOverhead);
  if (p == null || r.throughput == null) return null;
  const denom = p + overhead;
  return denom > 0 ? (r.throughput * gpus) / denom : null;
}

export interface SummaryOptions {
  gpus: number;
  planOverhead: number;
  overhead: number;
  /** Seconds below which a measurement window is flagged as short (power sensors average over ~1 s). */
  shortWindowS?: number;
}

export function summarize(runs: RunRecord[], o: SummaryOptions): Map<string, CapSummary[]> {
  const out = new Map<string, CapSummary[]>();
  const groups = new Map<string, RunRecord[]>();
  for (const r of runs) {
    const k = `${r.workload}\u0000${r.cap_w}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  for (const rs of groups.values()) {
    const done = rs.filter((r) => r.status === 'done');
    const eff = stat(done.map((r) => efficiencyAt(r, o.gpus, o.planOverhead, o.overhead) ?? NaN));
    const thr = stat(done.map((r) => r.throughput ?? NaN));
    const pw = stat(done.map((r) => r.mean_power_w ?? NaN));
    const cap = rs[0]!.cap_w;
    const flags: string[] = [];
    const notEnforced = done.filter((r) => (r.enforced_limit_w != null && Math.abs(r.enforced_limit_w - cap) > Math.max(5, cap * 0.02)) || (r.mean_power_w != null && r.mean_power_w > cap * 1.05));
    if (notEnforced.length) flags.push(`cap not enforced in ${notEnforced.length} run(s): power or enforced limit above ${cap} W`);
    if (eff.mean && eff.sd != null && eff.sd / eff.mean > 0.05) flags.push(`high variance: efficiency sd ${((eff.sd / eff.mean) * 100).toFixed(1)} % of the mean`);
    if (done.length === 1) flags.push('one repetition: no variance estimate');
    const short = done.filter((r) => r.measure_start != null && r.measure_end != null && r.measure_end - r.measure_start < (o.shortWindowS ?? 10));
    if (short.length) flags.push(`short measurement window in ${short.length} run(s) (< ${o.shortWindowS ?? 10} s; 1 s power averaging lags)`);
    const failed = rs.length - done.length;
    if (failed) flags.push(`${failed} run(s) not done (${[...new Set(rs.filter((r) => r.status !== 'done').map((r) => r.status))].join(', ')})`);
    const list = out.get(rs[0]!.workload) ?? [];
    list.push({
      workload: rs[0]!.workload,
      cap_w: cap,
      units: rs.find((r) => r.units)?.units ?? null,
      efficiency: eff,
      throughput: thr,
      power_w: pw,
      energy_per_unit: eff.mean ? 1 / eff.mean : null,
      runs: rs,
      failed,
      flags,
    });
    out.set(rs[0]!.workload, list);
  }
  for (const l of out.values()) l.sort((a, b) => a.cap_w - b.cap_w);
  return out;
}

function overlapRange(caps: CapSummary[], best: CapSummary, pick: (c: CapSummary) => Stat): [number, number] | null {
  const b = pick(best);
  if (b.mean == null) return null;
  const lo = b.mean - (b.ci95 ?? 0);
  const close = caps.filter((c) => {
    const s = pick(c);
    return s.mean != null && s.mean + (s.ci95 ?? 0) >= lo;
  });
  return [Math.min(...close.map((c) => c.cap_w)), Math.max(...close.map((c) => c.cap_w))];
}

export function selectors(caps: CapSummary[], maxSlowdown = 0.1): Selector[] {
  const valid = caps.filter((c) => c.efficiency.mean != null && c.throughput.mean != null);
  const byEff = [...valid].sort((a, b) => b.efficiency.mean! - a.efficiency.mean!)[0];
  const byThr = [...valid].sort((a, b) => b.throughput.mean! - a.throughput.mean!)[0];
  const fast = byThr ? valid.filter((c) => c.throughput.mean! >= (1 - maxSlowdown) * byThr.throughput.mean!) : [];
  const byEffFast = [...fast].sort((a, b) => b.efficiency.mean! - a.efficiency.mean!)[0];
  const ci = (s: Stat) => (s.ci95 != null ? ` ± ${s.ci95.toPrecision(2)}` : '');
  return [
    {
      id: 'max-efficiency',
      label: 'Most work per joule',
      cap_w: byEff?.cap_w ?? null,
      value: byEff?.efficiency.mean ?? null,
      range: byEff ? overlapRange(valid, byEff, (c) => c.efficiency) : null,
      note: byEff ? `${byEff.efficiency.mean!.toPrecision(3)}${ci(byEff.efficiency)} ${byEff.units ?? 'units'}/J` : 'no finished runs',
    },
    {
      id: 'max-throughput',
      label: 'Highest throughput',
      cap_w: byThr?.cap_w ?? null,
      value: byThr?.throughput.mean ?? null,
      range: byThr ? overlapRange(valid, byThr, (c) => c.throughput) : null,
      note: byThr ? `${byThr.throughput.mean!.toPrecision(4)}${ci(byThr.throughput)} ${byThr.units ?? 'units'}/s per GPU` : 'no finished runs',
    },
    {
      id: 'efficiency-within-slowdown',
      label: `Most work per joule, ≤ ${Math.round(maxSlowdown * 100)} % slower`,
      cap_w: byEffFast?.cap_w ?? null,
      value: byEffFast?.efficiency.mean ?? null,
      range: null,
      note: byEffFast && byThr ? `${((1 - byEffFast.throughput.mean! / byThr.throughput.mean!) * 100).toFixed(1)} % slower than the fastest cap` : 'no finished runs',
    },
  ];
}

/** Caps on the Pareto front of (throughput up, energy per unit down). */
export function paretoFront(caps: CapSummary[]): CapSummary[] {
  const pts = caps.filter((c) => c.throughput.mean != null && c.energy_per_unit != null);
  return pts
    .filter((a) => !pts.some((b) => b !== a && b.throughput.mean! >= a.throughput.mean! && b.energy_per_unit! <= a.energy_per_unit! && (b.throughput.mean! > a.throughput.mean! || b.energy_per_unit! < a.energy_per_unit!)))
    .sort((a, b) => a.throughput.mean! - b.throughput.mean!);
}

/** Best cap (max efficiency) as the node overhead varies: the sensitivity the seed paper's reviewers asked for. */
export function overheadSensitivity(runs: RunRecord[], o: Omit<SummaryOptions, 'overhead'>, overheads = [0, 50, 100, 150, 200, 300]): { workload: string; overhead: number; cap_w: number | null }[] {
  const out: { workload: string; overhead: number; cap_w: number | null }[] = [];
  for (const ov of overheads) {
    for (const [w, caps] of summarize(runs, { ...o, overhead: ov })) out.push({ workload: w, overhead: ov, cap_w: selectors(caps)[0]!.cap_w });
  }
  return out;
}
