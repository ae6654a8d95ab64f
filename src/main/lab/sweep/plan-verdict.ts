import { BackendChoice, type DeviceInfo } from '../../../shared/device';
import type { Plan } from '../../../shared/plan';
import { definitionTiming, estimatePlanWall, mergeTimings, planTimingWarnings, simTiming, timingFromRuns, type PlanEstimate, type WorkloadTiming } from '../../../core/plan-timing';
import { loadWorkloads } from '../runner/workloads';
import { openLabBackend, type LabBackend } from '../gpu/lab-backend';
import type { Db } from '../store/db';
import { pastRunsOf } from '../store/run-history';
import { schemaIssues } from './plan-file';
import { deviceIssues, partsOf, rawParts } from './plan-check';
import { issuesOfLines, shapeIssue, type PlanIssue } from '../input/issues';
import { checkWorkloadParams, knownWorkloads } from './workload-command';

export interface PlanVerdict {
  plan: Plan | null;
  issues: PlanIssue[];
  /**
   * What the plan's warm-up, window or timeouts do not allow for (a workload's start-up and ramp, what the
   * steady-state test needs), each at its field. Warnings, not errors: the plan may still start.
   */
  warnings: PlanIssue[];
  /** Wall time of the plan and what the figure includes; null for a plan with errors. */
  estimate: PlanEstimate | null;
  /** Backend seconds per wall second of the backend the plan would use (the estimate's time scale). */
  timeScale: number;
}

/** Where earlier runs are looked up: the lab database and the host name its devices are recorded under. */
export interface PlanHistory {
  db: Db;
  host: string;
}

/**
 * What is known of each workload's start-up and ramp on the plan's first device: its earlier runs there, and the
 * simulator's model on simulated GPUs or the workload definition's own figure on real ones.
 */
function timingsOf(plan: Plan, lab: LabBackend, device: DeviceInfo | undefined, history: PlanHistory | undefined, env: NodeJS.ProcessEnv): Map<string, WorkloadTiming | null> {
  const out = new Map<string, WorkloadTiming | null>();
  const catalog = lab.sim ? null : loadWorkloads({ env });
  for (const ref of plan.workloads) {
    if (out.has(ref.id)) continue;
    const def = catalog?.get(ref.id)?.def;
    const model = lab.sim ? simTiming(ref) : def ? definitionTiming(def) : null;
    const past = history && device ? timingFromRuns(ref.id, pastRunsOf(history.db, ref.id, device.name, history.host), model?.init_s ?? 0, device.name) : null;
    out.set(ref.id, mergeTimings(model, past));
  }
  return out;
}

/**
 * Every problem of a plan at once, each at its field: the schema's, and (from whatever parts parse) unknown
 * workloads and parameters, missing devices, caps outside a device's range, and a backend that cannot be opened;
 * then the warnings of a plan whose timing does not suit its workloads, and its time estimate.
 * Reads devices (and, given `history`, earlier runs) only: no limit is touched and nothing on the host changes (the
 * simulated GPUs a plan's presets name are looked at, not set up).
 */
export async function checkPlan(value: unknown, opts: { backend?: BackendChoice; env: NodeJS.ProcessEnv; history?: PlanHistory }): Promise<PlanVerdict> {
  const schema = schemaIssues(value);
  // A plan holding itself or nested without end: nothing else is read from it (every other check would recurse).
  if (shapeIssue(value)) return { plan: null, issues: schema.issues, warnings: [], estimate: null, timeScale: 1 };
  const named = BackendChoice.safeParse((value as { backend?: unknown } | null)?.backend ?? 'auto');
  let lab: LabBackend;
  try {
    // Look only: a plan naming other simulated presets is checked against them without setting them up on the host.
    lab = await openLabBackend(opts.backend ?? (named.success ? named.data : 'auto'), { env: opts.env, plan: schema.plan ?? undefined, lookOnly: true });
  } catch (e) {
    return { plan: schema.plan, issues: [...schema.issues, { path: 'backend', message: `cannot be opened: ${(e as Error).message}` }], warnings: [], estimate: null, timeScale: 1 };
  }
  try {
    const parts = schema.plan ? partsOf(schema.plan) : rawParts(value);
    const devices = deviceIssues(parts, await lab.backend.listDevices(), knownWorkloads(lab.backend, opts.env));
    const params = schema.plan ? issuesOfLines(checkWorkloadParams(schema.plan, lab.backend, opts.env)) : [];
    const issues = [...schema.issues, ...params, ...devices.issues];
    if (!schema.plan || issues.length) return { plan: schema.plan, issues, warnings: [], estimate: null, timeScale: lab.timeScale };
    const timings = timingsOf(schema.plan, lab, devices.chosen[0], opts.history, opts.env);
    return { plan: schema.plan, issues, warnings: planTimingWarnings(schema.plan, timings, lab.timeScale), estimate: estimatePlanWall(schema.plan, timings, lab.timeScale), timeScale: lab.timeScale };
  } finally {
    await lab.backend.close();
  }
}
