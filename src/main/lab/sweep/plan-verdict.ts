import { BackendChoice, type DeviceInfo } from '../../../shared/device';
import type { Plan } from '../../../shared/plan';
import { definitionTiming, estimatePlanWall, mergeTimings, planTimingWarnings, simTiming, timingFromRuns, type PlanEstimate, type WorkloadTiming } from '../../../core/plan-timing';
import { loadWorkloads } from '../runner/workloads';
import { openLabBackend, type PtyHandler } from '../gpu/lab-backend';
import type { LabBackend } from '../gpu/backend';
import type { Db } from '../store/db';
import { pastRunsOf } from '../store/run-history';
import { schemaIssues } from './plan-file';
import { deviceIssues, partsOf, rawParts } from './plan-check';
import { shapeIssue, type PlanIssue } from '../input/issues';
import { trace } from '../process/trace';
import { checkWorkloadParams, knownWorkloads } from './workload-command';

/** A checked plan's answer to validatePlan: its errors, or its warnings and estimate. */
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
 * A plan read once: parsed, then checked against the devices of the backend it would run on, every problem at its
 * field. The backend stays open, look-only: the sweep of this plan runs on it (`forSweep`, Engine.beginSweep), and
 * whoever does not run it closes it (`close`). validatePlan, startSweep and `caplab sweep` each read a plan once.
 */
export class CheckedPlan {
  constructor(
    /** The plan; null when the schema refused it. */
    readonly plan: Plan | null,
    /** Its errors, each at its field: the schema's, then unknown parameters, devices, workloads and caps. */
    readonly issues: PlanIssue[],
    /** The plan's devices as the backend lists them (those of them that exist). */
    readonly devices: DeviceInfo[],
    /** The backend it was checked on; null where none could be opened (an issue at `backend` says why). */
    readonly lab: LabBackend | null,
    private readonly env: NodeJS.ProcessEnv,
    /** Where a limit change's sudo pty goes: the backend was opened before the engine that runs the sweep. */
    private readonly pty: { to: PtyHandler | null },
  ) {}

  /** Its warnings and wall-time estimate, with what `history` knows of its workloads; reads no device again. */
  verdict(history?: PlanHistory): PlanVerdict {
    const timeScale = this.lab?.timeScale ?? 1;
    if (!this.plan || !this.lab || this.issues.length) return { plan: this.plan, issues: this.issues, warnings: [], estimate: null, timeScale };
    const timings = timingsOf(this.plan, this.lab, this.devices[0], history, this.env);
    return { plan: this.plan, issues: this.issues, warnings: planTimingWarnings(this.plan, timings, timeScale), estimate: estimatePlanWall(this.plan, timings, timeScale), timeScale };
  }

  /**
   * The sweep of this plan starts on the backend it was checked on: from now on it may change the host (the
   * simulated GPUs take the plan's presets) and hands a limit change's sudo pty to `onPty`. Only for a plan without issues.
   */
  forSweep(onPty: PtyHandler): { plan: Plan; lab: LabBackend; devices: DeviceInfo[] } {
    if (!this.plan || !this.lab || this.issues.length) throw new Error('a plan with issues cannot be run');
    this.pty.to = onPty;
    this.lab.backend.allowChanges?.();
    return { plan: this.plan, lab: this.lab, devices: this.devices };
  }

  async close(): Promise<void> {
    await this.lab?.backend.close();
  }
}

/**
 * Reads a plan once: every problem at its field (the schema's, and from whatever parts parse, unknown workloads and
 * parameters, missing devices, caps outside a device's range, a backend that cannot be opened), against the
 * backend it names (or `backend`, the --backend flag) opened look-only: no limit is touched and nothing on the host
 * changes (the simulated GPUs a plan's presets name are looked at, not set up). The caller closes it or runs it.
 */
export async function readPlan(value: unknown, opts: { backend?: BackendChoice; env: NodeJS.ProcessEnv }): Promise<CheckedPlan> {
  trace(opts.env, 'plan.check');
  const pty: { to: PtyHandler | null } = { to: null };
  const schema = schemaIssues(value);
  // A plan holding itself or nested without end: nothing else is read from it (every other check would recurse).
  if (shapeIssue(value)) return new CheckedPlan(null, schema.issues, [], null, opts.env, pty);
  const named = BackendChoice.safeParse((value as { backend?: unknown } | null)?.backend ?? 'auto');
  let lab: LabBackend;
  try {
    lab = await openLabBackend(opts.backend ?? (named.success ? named.data : 'auto'), { env: opts.env, plan: schema.plan ?? undefined, lookOnly: true, onPty: (p) => pty.to?.(p) });
  } catch (e) {
    return new CheckedPlan(schema.plan, [...schema.issues, { path: 'backend', message: `cannot be opened: ${(e as Error).message}` }], [], null, opts.env, pty);
  }
  try {
    const parts = schema.plan ? partsOf(schema.plan) : rawParts(value);
    const devices = deviceIssues(parts, await lab.backend.listDevices(), knownWorkloads(lab.backend, opts.env));
    const params = schema.plan ? checkWorkloadParams(schema.plan, lab.backend, opts.env) : [];
    return new CheckedPlan(schema.plan, [...schema.issues, ...params, ...devices.issues], devices.chosen, lab, opts.env, pty);
  } catch (e) {
    await lab.backend.close();
    throw e;
  }
}

/** validatePlan's check: the plan read (readPlan), its verdict with `history`, the backend closed again. */
export async function checkPlan(value: unknown, opts: { backend?: BackendChoice; env: NodeJS.ProcessEnv; history?: PlanHistory }): Promise<PlanVerdict> {
  const checked = await readPlan(value, opts);
  try {
    return checked.verdict(opts.history);
  } finally {
    await checked.close();
  }
}
