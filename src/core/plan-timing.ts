// What a plan's warm-up, window and time estimate must allow for, from what is known of each workload's start-up
// and ramp: earlier runs of it on the same device (the lab database) and, on simulated GPUs, the simulator's model.
// A plan that ignores them still runs (these are warnings, not errors), but its runs come out flagged.
import type { PlanIssue } from '../shared/api/plans';
import type { Plan, Span, WorkloadRef } from '../shared/plan';
import type { WorkloadDefinition } from '../shared/workload';
import { estimatePlanSeconds, scheduleRuns } from './schedule';
import { detectSteadyState, MSER_BATCH, MSER_MIN_BATCHES } from './analysis/steady-state';
import { batchEfficiency, findWorkload, resolveParams, type SimParams } from './sim/workloads';
import { warmupEndS } from './sim/model';

/** What is known of how one workload starts and settles on the plan's devices. */
export interface WorkloadTiming {
  workload: string;
  /** Device-clock seconds from the process start to the first step besides starting the process (model build). */
  init_s: number;
  /** Wall seconds to start the process (not sped up on simulated GPUs); null where nothing measured it. */
  boot_wall_s: number | null;
  /** Device-clock seconds from the first step until throughput is steady; null where unknown. */
  ramp_s: number | null;
  /** Device-clock seconds per step, where known. */
  step_s: number | null;
  /** Where these figures come from, in words ("the simulator's model", "3 earlier runs on NVIDIA H200"). */
  source: string;
}

/** Wall seconds to start a real workload's process where no earlier run measured it (an interpreter and its imports). */
export const DEFAULT_BOOT_WALL_S = 2;
/**
 * The same for a simulated workload, CapLab's own CLI from its bundle: 0.7 s wall a start on the 2-core dev VM
 * (`bench/results/local-2026-12-03-startup.md`; 1.8-2.1 s before the bundle, through tsx).
 */
export const SIM_BOOT_WALL_S = 1;

/** The simulator's model of a workload (init, ramp to within 1 %, step time on the reference GPU); null if it has none. */
export function simTiming(ref: WorkloadRef): WorkloadTiming | null {
  const model = findWorkload(ref.id);
  if (!model) return null;
  let params;
  try {
    params = resolveParams(model, Object.fromEntries(Object.entries(ref.params).filter(([, v]) => !Array.isArray(v))) as SimParams);
  } catch {
    return null;
  }
  const rate = model.throughput_ref * batchEfficiency(model, params.batch_size);
  return { workload: ref.id, init_s: model.init_s, boot_wall_s: null, ramp_s: warmupEndS(model) - model.init_s, step_s: (params.batch_size * params.item_units) / rate, source: "the simulator's model" };
}

/** A workload definition's own figure for its ramp on real GPUs (its `ramp`); null where it gives none. */
export function definitionTiming(def: Pick<WorkloadDefinition, 'id' | 'ramp'>): WorkloadTiming | null {
  if (!def.ramp) return null;
  return { workload: def.id, init_s: 0, boot_wall_s: null, ramp_s: def.ramp.seconds, step_s: null, source: `its definition: ${def.ramp.source}` };
}

/** One earlier run of a workload: when it started, its steps (end time, units/s, duration) and its clock's speed-up. */
export interface PastRun {
  started_at: number;
  steps: { t: number; rate: number; dt: number | null }[];
  /** Device seconds per wall second of that run (its simulated speed-up; 1 on real devices). */
  speedup: number;
}

function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Start-up and ramp measured on earlier runs: start-up from the run's start to its first step, the ramp from the
 * first step to the steady state the run's own test (MSER on the step rates) found. `init_s`: the part of the
 * start-up that runs on the device clock (the simulator's model build), so the rest is process start in wall time.
 */
export function timingFromRuns(workload: string, runs: readonly PastRun[], init_s: number, device: string): WorkloadTiming | null {
  const boots: number[] = [];
  const ramps: number[] = [];
  const steps: number[] = [];
  for (const r of runs) {
    const s = r.steps.filter((p) => Number.isFinite(p.t) && Number.isFinite(p.rate)).sort((a, b) => a.t - b.t);
    const first = s[0];
    if (!first || !(r.speedup > 0)) continue;
    const firstStart = first.t - (first.dt !== null && first.dt > 0 ? first.dt : 0);
    boots.push(Math.max(0, firstStart - r.started_at - init_s) / r.speedup);
    const dts = s.map((p) => p.dt).filter((d): d is number => d !== null && d > 0);
    const dt = median(dts);
    if (dt !== null) steps.push(dt);
    const steady = detectSteadyState(s.map((p) => p.t), s.map((p) => p.rate), { batch: s.length >= MSER_BATCH * MSER_MIN_BATCHES ? MSER_BATCH : 1, min_batches: MSER_MIN_BATCHES });
    if (steady.reached && steady.end_t !== null) ramps.push(steady.end_t - firstStart);
  }
  if (!boots.length) return null;
  return {
    workload,
    init_s,
    boot_wall_s: median(boots),
    ramp_s: ramps.length ? Math.max(...ramps) : null,
    step_s: median(steps),
    source: `${boots.length} earlier run${boots.length === 1 ? '' : 's'} on ${device}`,
  };
}

/** The model and the history together: the longer ramp (the safer warm-up), the measured process start and step time. */
export function mergeTimings(model: WorkloadTiming | null, history: WorkloadTiming | null): WorkloadTiming | null {
  if (!model || !history) return model ?? history;
  const ramps = [model.ramp_s, history.ramp_s].filter((r): r is number => r !== null);
  return {
    workload: model.workload,
    init_s: model.init_s,
    boot_wall_s: history.boot_wall_s ?? model.boot_wall_s,
    ramp_s: ramps.length ? Math.max(...ramps) : null,
    step_s: history.step_s ?? model.step_s,
    source: `${model.source} and ${history.source}`,
  };
}

function spanSeconds(span: Span, stepS: number | null): number | null {
  return 'seconds' in span ? span.seconds : stepS !== null ? span.steps * stepS : null;
}

const round = (x: number) => (x >= 10 ? Math.round(x) : Math.round(x * 10) / 10);
/** A whole number of seconds to recommend: up to the next 5 s. */
const upTo5 = (x: number) => Math.max(5, Math.ceil(x / 5) * 5);

/**
 * Warnings at the fields of a plan whose warm-up, window or hang timeout do not allow for what is known of its
 * workloads. `timeScale`: device seconds per wall second (the simulated speed-up).
 */
export function planTimingWarnings(plan: Plan, timings: ReadonlyMap<string, WorkloadTiming | null>, timeScale: number): PlanIssue[] {
  const out: PlanIssue[] = [];
  const seen = new Set<string>();
  const interval = plan.sample_interval_ms / 1000;
  const minPoints = MSER_BATCH * MSER_MIN_BATCHES;
  for (const ref of plan.workloads) {
    const t = timings.get(ref.id);
    if (!t || seen.has(ref.id)) continue;
    seen.add(ref.id);
    const warm = spanSeconds(plan.warmup, t.step_s);
    const win = spanSeconds(plan.window, t.step_s);
    if (t.ramp_s !== null && warm !== null && warm < t.ramp_s) {
      const inSteps = 'steps' in plan.warmup;
      const need = inSteps && t.step_s ? `${Math.ceil(t.ramp_s / t.step_s)} steps (~${upTo5(t.ramp_s)} s)` : `${upTo5(t.ramp_s)} s`;
      out.push({
        path: inSteps ? 'warmup.steps' : 'warmup.seconds',
        message: `${ref.id} is still ramping up for about ${round(t.ramp_s)} s after its first step (${t.source}): a ${round(warm)} s warm-up leaves the ramp in the measurement window, and the runs will be flagged warmup-in-window or no-steady-state; use at least ${need}`,
      });
    }
    if (warm !== null && win !== null) {
      // The steady-state test needs its points from the first step to the window's end: power readings, or steps.
      const total = warm + win;
      const powerShort = total / interval < minPoints;
      const stepsShort = t.step_s === null || total / t.step_s < MSER_MIN_BATCHES;
      if (powerShort && stepsShort) {
        const needTotal = Math.max(minPoints * interval, t.step_s !== null ? MSER_MIN_BATCHES * t.step_s : 0);
        out.push({
          path: 'steps' in plan.window ? 'window.steps' : 'window.seconds',
          message: `warm-up + window give ${Math.floor(total / interval)} power readings at ${plan.sample_interval_ms} ms; the steady-state test (MSER-${MSER_BATCH}) needs at least ${minPoints} from the first step to the window's end: make warm-up + window at least ${round(needTotal)} s, or sample faster`,
        });
      }
    }
    const startWall = (t.boot_wall_s ?? 0) + t.init_s / timeScale;
    if (startWall >= plan.hang_timeout_s) {
      out.push({ path: 'hang_timeout_s', message: `${ref.id} takes about ${round(startWall)} s to reach its first step (${t.source}); a ${plan.hang_timeout_s} s hang timeout stops it as hung before that` });
    }
  }
  return out;
}

/** The estimate of a plan's wall time, and what it includes. */
export interface PlanEstimate {
  seconds: number;
  basis: string;
}

/**
 * Wall seconds of a plan: warm-up, window, teardown and cool-down of every run on the device clock
 * (estimatePlanSeconds), and per run the workload's start-up before its first step, all divided by the speed-up;
 * plus per run the process start in wall time (measured on earlier runs, else assumed), which no speed-up shortens.
 */
export function estimatePlanWall(plan: Plan, timings: ReadonlyMap<string, WorkloadTiming | null>, timeScale: number): PlanEstimate {
  const runs = scheduleRuns(plan);
  const step = [...timings.values()].find((t) => t?.step_s != null)?.step_s ?? undefined;
  let seconds = estimatePlanSeconds(plan, step) / timeScale;
  let boots = 0;
  let assumed = false;
  const simulated = plan.backend === 'sim' || timeScale !== 1;
  for (const run of runs) {
    const t = timings.get(run.workload) ?? null;
    if (t?.boot_wall_s == null) assumed = true;
    const boot = t?.boot_wall_s ?? (simulated ? SIM_BOOT_WALL_S : DEFAULT_BOOT_WALL_S);
    boots += boot;
    seconds += (t?.init_s ?? 0) / timeScale + boot;
  }
  const parts = [
    `${runs.length} run${runs.length === 1 ? '' : 's'}: start-up, warm-up, window and ${plan.cooldown_s} s cool-down each`,
    `process start ~${round(runs.length ? boots / runs.length : 0)} s a run${assumed ? ' (assumed where no earlier run measured it)' : ''}`,
  ];
  if (timeScale !== 1) parts.push(`simulated time ${timeScale}x faster, process start not`);
  return { seconds, basis: parts.join('; ') };
}
