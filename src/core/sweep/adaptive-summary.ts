// What an adaptive plan spent and what the same plan with every figure fixed would have: the "time saved" of the
// results (AnalysisResult.adaptive) and the designer's estimate beside the fixed one.
import { planCaps, sequentialRunBudget, type Plan, type PlannedRun } from '../../shared/plan';
import type { RunRecord } from '../../shared/records';
import type { AdaptiveSummary } from '../../shared/adaptive';

/** The first pass's runs say so; where the sequential rule will follow, that they are its first repetition. */
export function labelFirstPass(runs: readonly PlannedRun[], plan: Pick<Plan, 'caps' | 'adaptive'>): PlannedRun[] {
  if (!plan.adaptive && (Array.isArray(plan.caps) || !('adaptive' in plan.caps))) return [...runs];
  const grid = !Array.isArray(plan.caps) && 'adaptive' in plan.caps ? `coarse grid, ${plan.caps.adaptive.step} W steps` : 'the plan grid';
  return runs.map((r) => ({ ...r, reason: r.reason ?? `first pass (${grid}), repetition ${r.repetition}` }));
}

/** Seconds a run's fixed window and cool-down last by the plan (a window in steps: null, not estimated). */
function fixedParts(plan: Plan): { window: number | null; cooldown: number } {
  return { window: 'seconds' in plan.window ? plan.window.seconds : null, cooldown: plan.cooldown_s };
}

/** Sums up a finished adaptive sweep; null for a plan without `adaptive`. */
export function adaptiveSummary(plan: Plan, runs: readonly RunRecord[]): AdaptiveSummary | null {
  if (!plan.adaptive) return null;
  const fixed = fixedParts(plan);
  let gpu = 0;
  let windowSaved = 0;
  let coolSaved = 0;
  let settled = 0;
  const ran = runs.filter((r) => r.started_at !== null && r.ended_at !== null);
  for (const r of ran) {
    gpu += r.ended_at! - r.started_at!;
    const w = r.adaptive?.window;
    if (w?.settled) {
      settled++;
      if (w.planned_s !== null) windowSaved += Math.max(0, w.planned_s - w.seconds);
    }
    const c = r.adaptive?.cooldown;
    if (c) {
      gpu += c.waited_s;
      coolSaved += Math.max(0, c.planned_s - c.waited_s);
    } else gpu += fixed.cooldown;
  }
  const perRun = ran.length ? (gpu + windowSaved + coolSaved) / ran.length : 0;
  let notNeeded = 0;
  const seq = plan.adaptive.repetitions;
  if (seq) {
    const byCap = new Map<string, number>();
    for (const r of ran) byCap.set(`${r.workload}@${r.cap_w}`, (byCap.get(`${r.workload}@${r.cap_w}`) ?? 0) + 1);
    for (const n of byCap.values()) notNeeded += Math.max(0, seq.max_per_cap - n);
  }
  const repsSaved = notNeeded * perRun;
  const saved = windowSaved + coolSaved + repsSaved;
  const h = (s: number) => (s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(0)} min` : `${s.toFixed(0)} s`);
  return {
    gpu_s: gpu,
    fixed_gpu_s: gpu + saved,
    saved_s: saved,
    window_saved_s: windowSaved,
    cooldown_saved_s: coolSaved,
    repetitions_saved_s: repsSaved,
    runs_not_needed: notNeeded,
    runs: ran.length,
    windows_settled: settled,
    note:
      `${h(gpu)} of device time against ${h(gpu + saved)} with the plan's figures fixed: ${h(windowSaved)} of windows, ${h(coolSaved)} of cool-downs` +
      (seq ? `, ${notNeeded} repetitions not needed (${h(repsSaved)}) against ${seq.max_per_cap} per cap` : ''),
  };
}

export interface AdaptiveEstimate {
  /** The plan with every figure fixed (what estimatePlanSeconds counts, with repetitions at max_per_cap). */
  fixed_s: number;
  /** Expected with the adaptive options. */
  adaptive_s: number;
  /** Most the adaptive plan may take (its budget.gpu_s, else every bound reached). */
  max_s: number;
  assumptions: string;
}

/**
 * Rough device time of an adaptive plan before Start: the window ends after its minimum (or the steady-state test's
 * 50 steps at stepSeconds), a cool-down after half the plan's bound, and the sequential rule repeats about a third
 * of the caps up to max_per_cap; runs the refinement adds count once. These are planning figures, not promises.
 */
export function estimateAdaptiveSeconds(plan: Plan, stepSeconds = 0.5): AdaptiveEstimate {
  const spanS = (s: Plan['window']) => ('seconds' in s ? s.seconds : s.steps * stepSeconds);
  const warm = spanS(plan.warmup);
  const win = spanS(plan.window);
  const caps = planCaps(plan.caps).length * plan.workloads.length;
  const refineRuns = !Array.isArray(plan.caps) && 'adaptive' in plan.caps ? plan.caps.adaptive.max_runs : 0;
  const firstRuns = caps * plan.repetitions + refineRuns;
  const a = plan.adaptive;
  const seqMax = a ? sequentialRunBudget(plan, planCaps(plan.caps).length + refineRuns) : 0;
  const perFixed = warm + win + plan.cooldown_s + 2;
  const fixedRuns = firstRuns + (a?.repetitions ? caps * Math.max(0, a.repetitions.max_per_cap - plan.repetitions) + refineRuns * Math.max(0, a.repetitions.max_per_cap - plan.repetitions) : 0);
  const winA = a?.window ? Math.min(win, Math.max(a.window.min_s, 50 * stepSeconds)) : win;
  const coolA = a?.cooldown ? plan.cooldown_s / 2 : plan.cooldown_s;
  const perAdaptive = warm + winA + coolA + 2;
  const seqRuns = a?.repetitions ? Math.min(seqMax, Math.ceil((firstRuns * (a.repetitions.max_per_cap - plan.repetitions)) / 3)) : 0;
  const budget = a?.budget.gpu_s ?? Infinity;
  return {
    fixed_s: fixedRuns * perFixed,
    adaptive_s: Math.min(budget, (firstRuns + seqRuns) * perAdaptive),
    max_s: Math.min(budget, (firstRuns + seqMax) * (warm + win + plan.cooldown_s + 2)),
    assumptions: `${firstRuns} first-pass runs${seqRuns ? ` + about ${seqRuns} sequential repetitions` : ''}; windows of ~${winA.toFixed(0)} s, cool-downs of ~${coolA.toFixed(0)} s`,
  };
}

/** The estimate in wall seconds (a simulated plan runs timeScale times faster); null for a plan without `adaptive`. */
export function adaptiveEstimate(plan: Plan, timeScale: number): AdaptiveEstimate | null {
  if (!plan.adaptive) return null;
  const e = estimateAdaptiveSeconds(plan);
  return { ...e, fixed_s: e.fixed_s / timeScale, adaptive_s: e.adaptive_s / timeScale, max_s: e.max_s / timeScale };
}
