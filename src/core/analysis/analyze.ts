// One entry point: a sweep's runs in, the complete analysis out (per-cap statistics, flags, optima per selector,
// sensitivity to the node overhead, Pareto front, clocks, drift, refinement proposal).
import {
  AnalysisInput,
  AnalysisOptions,
  SELECTORS,
  type AnalysisFlag,
  type AnalysisGroup,
  type AnalysisInputRaw,
  type AnalysisOptionsInput,
  type AnalysisResult,
  type CapPoint,
  type Optimum,
  type RunAnalysis,
  type Selector,
  type Trend,
} from '../../shared/analysis';
import { FLAGS_AT_CAP, FLAGS_EXCLUDING_RUNS } from '../../shared/flags';
import { combineClocks } from './clocks';
import { combineEnforcement } from './enforcement';
import { selectOptimum, slowdownReference, type OptimumPoint } from './optimum';
import { answerFix } from './answer-fix';
import { energyBasis } from '../../shared/energy-basis';
import { paretoFront } from './pareto';
import { proposeCaps } from './refine';
import { measureRun } from './run';
import { overheadSensitivity, type OverheadPoint } from './sensitivity';
import { describe, mean, trend } from './stats';

export const DEFAULT_OVERHEAD_W = 100;

/** Relative throughput drift across repetitions (pooled over caps) that is flagged when significant. */
const DRIFT_THROUGHPUT = 0.02;
/** Temperature rise across repetitions (°C, pooled over caps) that is flagged when significant. */
const DRIFT_TEMP_C = 2;


/** Why a usable run is left out of the decisions (null: it counts). */
function exclusion(r: RunAnalysis, o: AnalysisOptions): string | null {
  if (o.include_flagged) return null;
  const hit = FLAGS_EXCLUDING_RUNS.filter((f) => r.flags.includes(f));
  return hit.length ? hit.join(', ') : null;
}

/** Runs that count: usable, and not flagged out of the decisions. */
function counts(r: RunAnalysis, o: AnalysisOptions): boolean {
  return r.usable && exclusion(r, o) === null;
}

function capPoint(cap_w: number, runs: RunAnalysis[], o: AnalysisOptions): CapPoint {
  const usable = runs.filter((r) => counts(r, o));
  const left = runs.filter((r) => r.usable && exclusion(r, o) !== null);
  const excluded_runs = left.map((r) => ({ run_id: r.run_id, reason: exclusion(r, o)! }));
  const flags: AnalysisFlag[] = [];
  const flag = (f: AnalysisFlag) => {
    if (!flags.includes(f)) flags.push(f);
  };
  const throughput = describe(usable.map((r) => r.throughput));
  const efficiency = describe(usable.map((r) => r.efficiency));
  const enforcement = combineEnforcement(
    cap_w,
    runs.filter((r) => r.window !== null).map((r) => r.enforcement),
  );
  for (const f of enforcement.flags) flag(f);
  if (usable.length === 1) flag('single-repetition');
  if ((throughput.cv ?? 0) > o.cv_threshold || (efficiency.cv ?? 0) > o.cv_threshold) flag('high-variance');
  for (const r of runs) for (const f of FLAGS_AT_CAP) if (r.flags.includes(f)) flag(f);
  const byRep = [...usable].sort((a, b) => a.repetition - b.repetition);
  const drift = trend(
    byRep.map((r) => r.repetition),
    byRep.map((r) => r.throughput as number),
    { alpha: o.alpha, minRelative: DRIFT_THROUGHPUT },
  );
  if (drift?.flagged) flag('drift');
  let eligible = usable.length > 0;
  let excluded_reason: string | null = null;
  if (!eligible)
    excluded_reason = excluded_runs.length
      ? `every usable run is flagged (${[...new Set(excluded_runs.map((x) => x.reason))].join('; ')}); include_flagged keeps them`
      : runs.length
        ? 'no usable runs (failed, or missing energy or throughput)'
        : 'no runs';
  else if (enforcement.enforced === false && !o.include_unenforced) {
    eligible = false;
    excluded_reason = `cap not enforced: ${enforcement.reasons.filter((m) => !m.includes('spikes')).join('; ') || 'see enforcement'}`;
  }
  if (!eligible) flag('excluded');
  return {
    cap_w,
    run_ids: runs.map((r) => r.run_id),
    n_usable: usable.length,
    throughput,
    power_w: describe(usable.map((r) => r.mean_power_w)),
    node_power_w: describe(usable.map((r) => r.node_power_w)),
    efficiency,
    energy_per_unit_j: describe(usable.map((r) => r.energy_per_unit_j)),
    temp_c: describe(usable.map((r) => r.temp_c)),
    enforcement,
    clocks: combineClocks(runs.filter((r) => r.window !== null).map((r) => r.clocks)),
    drift,
    eligible,
    excluded_reason,
    flags,
    excluded_runs,
    excluded_throughput: describe(left.map((r) => r.throughput)),
    excluded_efficiency: describe(left.map((r) => r.efficiency)),
  };
}

/** Pooled trend across repetitions of the runs' deviation from their cap's mean (so caps do not confound it). */
function pooledDrift(runs: RunAnalysis[], value: (r: RunAnalysis) => number | null, relative: boolean, minAbsolute: number, alpha: number): Trend | null {
  const byCap = new Map<number, RunAnalysis[]>();
  for (const r of runs) if (value(r) !== null) byCap.set(r.cap_w, [...(byCap.get(r.cap_w) ?? []), r]);
  const x: number[] = [];
  const y: number[] = [];
  for (const rs of byCap.values()) {
    if (rs.length < 2) continue;
    const m = mean(rs.map((r) => value(r) as number));
    for (const r of rs) {
      x.push(r.repetition);
      y.push(relative ? (value(r) as number) / m - 1 : (value(r) as number) - m);
    }
  }
  // Residuals have mean ~0, so only the absolute change decides materiality.
  const t = trend(x, y, { alpha, minRelative: 0, minAbsolute });
  return t ? { ...t, relative_change: null } : null;
}

function buildGroup(workload: string, device_model: string, runs: RunAnalysis[], input: AnalysisInput, o: AnalysisOptions & { overhead_w: number }): AnalysisGroup {
  const caps = [...new Set(runs.map((r) => r.cap_w))].sort((a, b) => a - b);
  const points = caps.map((c) =>
    capPoint(
      c,
      runs.filter((r) => r.cap_w === c),
      o,
    ),
  );
  const usableAt = (c: number) => runs.filter((r) => r.cap_w === c && counts(r, o));
  const optPoints: OptimumPoint[] = points.map((p) => ({
    cap_w: p.cap_w,
    eligible: p.eligible,
    excluded_reason: p.excluded_reason,
    runs: usableAt(p.cap_w).map((r) => ({ throughput: r.throughput as number, efficiency: r.efficiency as number })),
  }));
  const default_limit_w = input.default_limits[device_model] ?? null;
  const optOpts = { slowdown_budget: o.slowdown_budget, weight: o.weight, alpha: o.alpha, margin: o.margin, pool_single: o.pool_single, default_limit_w, no_answer_fix: answerFix(workload, runs, points) };
  const optima = Object.fromEntries(SELECTORS.map((s) => [s, selectOptimum(optPoints, s, optOpts)])) as Record<Selector, Optimum>;
  const ohPoints: OverheadPoint[] = points.map((p) => ({
    cap_w: p.cap_w,
    eligible: p.eligible,
    excluded_reason: p.excluded_reason,
    runs: usableAt(p.cap_w)
      .filter((r) => r.gpu_energy_j !== null && r.units_total !== null && r.duration_s !== null)
      .map((r) => ({ throughput: r.throughput as number, units_total: r.units_total as number, gpu_energy_j: r.gpu_energy_j as number, duration_s: r.duration_s as number })),
  }));
  const sensitivity = overheadSensitivity(ohPoints, { ...optOpts, from_w: o.sensitivity.from_w, to_w: o.sensitivity.to_w, step_w: o.sensitivity.step_w });
  const pareto = paretoFront(points.filter((p) => p.eligible).map((p) => ({ label: `${workload} @ ${p.cap_w} W`, cap_w: p.cap_w, throughput: p.throughput.mean, efficiency: p.efficiency.mean })));
  const usable = runs.filter((r) => counts(r, o));
  const drift = {
    throughput: pooledDrift(usable, (r) => r.throughput, true, DRIFT_THROUGHPUT, o.alpha),
    temp_c: pooledDrift(usable, (r) => r.temp_c, false, DRIFT_TEMP_C, o.alpha),
    flagged: false,
  };
  drift.flagged = !!(drift.throughput?.flagged || drift.temp_c?.flagged);

  const notes: string[] = [];
  const measured = runs.filter((r) => r.node?.source === 'measured-cpu').length;
  const energy_basis = energyBasis({ measured_cpu: measured, total: runs.length, overhead_w: o.overhead_w });
  notes.push(measured ? `node energy: GPUs + measured CPU in ${measured} of ${runs.length} runs, else GPUs + ${o.overhead_w} W overhead` : `node energy: GPUs + ${o.overhead_w} W overhead per node`);
  const unenforced = points.filter((p) => p.enforcement.enforced === false).map((p) => p.cap_w);
  if (unenforced.length) notes.push(`caps not enforced: ${unenforced.join(', ')} W (${o.include_unenforced ? 'kept in' : 'excluded from'} the optimum)`);
  const left = points.flatMap((p) => p.excluded_runs.map((x) => `#${x.run_id} at ${p.cap_w} W (${x.reason})`));
  if (left.length) notes.push(`runs left out of the statistics, best cap, Pareto front and sensitivity: ${left.join('; ')} (include_flagged keeps them)`);
  if (points.some((p) => p.n_usable === 1)) notes.push('some caps have a single repetition: no confidence interval there');
  if (drift.throughput?.flagged) notes.push(`throughput drifts across repetitions (${((drift.throughput.change ?? 0) * 100).toFixed(1)} % over the sweep)`);
  if (drift.temp_c?.flagged) notes.push(`temperature drifts across repetitions (${drift.temp_c.change.toFixed(1)} °C over the sweep)`);

  let refine: AnalysisGroup['refine'] = null;
  if (o.adaptive) {
    const elig = points.filter((p) => p.eligible);
    const limits = input.device_limits[device_model] ?? { min_w: Math.min(...caps), max_w: Math.max(...caps), granularity_w: 1 };
    const primary = optima[o.selector];
    const sign = primary.direction === 'max' ? 1 : -1;
    const scoreAt = new Map(primary.scores.filter((s) => s.feasible).map((s) => [s.cap_w, s.value === null ? null : sign * s.value]));
    refine = proposeCaps({
      points: elig.map((p) => ({ cap_w: p.cap_w, score: scoreAt.get(p.cap_w) ?? null })),
      limits,
      width_w: o.adaptive.width_w,
      max_runs: o.adaptive.max_runs,
      runs_used: o.adaptive.runs_used,
      repetitions: o.adaptive.repetitions,
      batch: o.adaptive.batch,
    });
  }
  return {
    workload,
    device_model,
    units: runs.find((r) => r.units)?.units ?? null,
    caps: points,
    optima,
    best: optima[o.selector],
    sensitivity,
    pareto,
    drift,
    refine,
    notes,
    reference: slowdownReference(optPoints, default_limit_w),
    energy_basis,
  };
}

/**
 * Analyses a sweep. Input and options are validated with the shared zod schemas (a ZodError on malformed input);
 * bad data inside well-formed input (NaN readings, empty windows, missing sensors) gives flags, never a throw.
 */
export function analyzeSweep(inputRaw: AnalysisInputRaw | AnalysisInput, optionsRaw: AnalysisOptionsInput = {}): AnalysisResult {
  const input = AnalysisInput.parse(inputRaw);
  const parsed = AnalysisOptions.parse(optionsRaw);
  const overhead_w = parsed.overhead_w ?? input.overhead_w ?? DEFAULT_OVERHEAD_W;
  const o = { ...parsed, overhead_w };
  const runs = input.runs.map((r) =>
    measureRun(r, { overhead_w, use_measured_cpu: o.use_measured_cpu, enforce_tol_frac: o.enforce_tol_frac, enforce_tol_w: o.enforce_tol_w }),
  );
  const keys: [string, string][] = [];
  for (const r of runs) if (!keys.some(([w, d]) => w === r.workload && d === r.device_model)) keys.push([r.workload, r.device_model]);
  const groups = keys.map(([w, d]) =>
    buildGroup(
      w,
      d,
      runs.filter((r) => r.workload === w && r.device_model === d),
      input,
      o,
    ),
  );
  const warnings: string[] = [];
  if (input.runs.length === 0) warnings.push('no runs to analyse');
  const unusable = runs.filter((r) => !r.usable);
  if (unusable.length) warnings.push(`${unusable.length} of ${runs.length} runs not usable: ${unusable.map((r) => `#${r.run_id} (${r.flags.join(', ') || r.status})`).join('; ')}`);
  if (o.overhead_w !== (input.overhead_w ?? DEFAULT_OVERHEAD_W) && input.overhead_w !== null)
    warnings.push(`overhead ${o.overhead_w} W differs from the plan's ${input.overhead_w} W`);
  return { schema: 'caplab.analysis/1', sweep_id: input.sweep_id, name: input.name, options: o, runs, groups, warnings };
}
