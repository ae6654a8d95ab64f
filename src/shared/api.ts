import { z } from 'zod';
import { BackendChoice, DeviceInfo, Sample } from './device';
import { AnalysisResult, Selector } from './analysis';
import { Plan } from './plan';
import { CapRestore, LiveSamples, RunRecord, RunStatus, RunTraces, SweepRecord } from './records';
import { ClusterJob, ClusterStatus, CollectResult, NodeAnalysis } from './cluster';

/**
 * The one contract between the engine and its faces (Electron IPC, the browser host, the CLI).
 * Every method has an input and output schema; both transports validate inputs with them.
 * Adding a method: one entry here plus one engine function in src/main/lab/engine.ts.
 */
export const methods = {
  health: { input: z.object({}).strict(), output: z.object({ ok: z.literal(true), version: z.string(), backend: z.string() }) },
  listDevices: {
    input: z.object({ backend: BackendChoice.optional() }).strict(),
    output: z.object({ backend: z.string(), reason: z.string(), devices: z.array(DeviceInfo) }),
  },
  validatePlan: {
    input: z.object({ plan: z.unknown() }).strict(),
    output: z.object({ ok: z.boolean(), errors: z.array(z.string()), plan: Plan.nullable(), run_count: z.number().int(), estimate_s: z.number().nullable() }),
  },
  planToYaml: { input: z.object({ plan: Plan }).strict(), output: z.object({ yaml: z.string() }) },
  planFromYaml: { input: z.object({ yaml: z.string().max(1_000_000) }).strict(), output: z.object({ ok: z.boolean(), errors: z.array(z.string()), plan: Plan.nullable() }) },
  startSweep: { input: z.object({ plan: z.unknown() }).strict(), output: z.object({ sweep_id: z.number().int() }) },
  cancelSweep: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ cancelled: z.boolean() }) },
  listSweeps: { input: z.object({ search: z.string().max(200).optional() }).strict(), output: z.array(SweepRecord) },
  getSweep: {
    input: z.object({ sweep_id: z.number().int() }).strict(),
    output: z.object({ sweep: SweepRecord, runs: z.array(RunRecord) }),
  },
  deleteSweep: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ deleted: z.boolean() }) },
  getRunTraces: {
    input: z.object({ run_id: z.number().int(), max_points: z.number().int().min(10).max(100_000).default(2000) }).strict(),
    output: RunTraces,
  },
  restoreCaps: { input: z.object({}).strict(), output: z.array(CapRestore) },
  /** One reading of every device now (idle gauges); during a sweep the `samples` event streams instead. */
  sampleDevices: {
    input: z.object({ backend: BackendChoice.optional() }).strict(),
    output: z.object({ backend: z.string(), samples: z.array(Sample) }),
  },
  /** Types into the running workload's terminal (a sudo password prompt, for instance). */
  writePty: { input: z.object({ sweep_id: z.number().int(), data: z.string().max(4096) }).strict(), output: z.object({ written: z.boolean() }) },
  /** The analysis of a sweep (same code as `caplab analyze`): per-cap statistics, flags, optima, sensitivity, Pareto. */
  analyzeSweep: {
    input: z
      .object({
        sweep_id: z.number().int(),
        overhead_w: z.number().min(0).max(10_000).optional(),
        selector: Selector.optional(),
        slowdown_budget: z.number().min(0).max(10).optional(),
        weight: z.number().min(0).max(1).optional(),
        include_unenforced: z.boolean().optional(),
      })
      .strict(),
    output: AnalysisResult,
  },
  /** Cluster jobs this database submitted (`caplab cluster submit`), newest first. */
  listClusterJobs: { input: z.object({}).strict(), output: z.array(ClusterJob) },
  /** squeue/sacct and the tasks' result files: each array task's state and runs. */
  clusterStatus: { input: z.object({ job: z.string().min(1).max(4096) }).strict(), output: ClusterStatus },
  /** Merges the tasks' results into one sweep with a node dimension (idempotent; partial while the job runs). */
  collectCluster: { input: z.object({ job: z.string().min(1).max(4096) }).strict(), output: CollectResult },
  /** scancel; every node restores its own limits. */
  cancelCluster: {
    input: z.object({ job: z.string().min(1).max(4096) }).strict(),
    output: z.object({ job_id: z.string(), cancelled: z.boolean(), remaining: z.number().int() }),
  },
  /** Node-to-node analysis of a sweep: spread across nodes and GPUs, outlier nodes, best cap per node and fleet. */
  analyzeNodes: { input: z.object({ sweep_id: z.number().int() }).strict(), output: NodeAnalysis },
  listWorkloads: {
    input: z.object({}).strict(),
    output: z.array(z.object({ id: z.string(), title: z.string(), units: z.string() })),
  },
} as const;

export const events = {
  'sweep.started': z.object({ sweep_id: z.number().int(), run_count: z.number().int(), simulated: z.boolean() }),
  'sweep.progress': z.object({
    sweep_id: z.number().int(),
    run_id: z.number().int().nullable(),
    runs_done: z.number().int(),
    run_count: z.number().int(),
    workload: z.string().nullable(),
    cap_w: z.number().nullable(),
    repetition: z.number().int().nullable(),
    phase: z.enum(['setting-cap', 'warmup', 'measure', 'cooldown', 'idle']),
    /** Fraction of the whole sweep done, 0..1. */
    fraction: z.number(),
  }),
  'run.finished': z.object({ sweep_id: z.number().int(), run: RunRecord, status: RunStatus }),
  'sweep.finished': z.object({ sweep_id: z.number().int(), status: SweepRecord.shape.status, error: z.string().nullable(), restored: z.array(CapRestore) }),
  'samples': LiveSamples,
  'throughput': z.object({ sweep_id: z.number().int(), run_id: z.number().int(), t: z.number(), rate: z.number() }),
  'pty.data': z.object({ sweep_id: z.number().int(), run_id: z.number().int(), data: z.string() }),
} as const;

export type MethodName = keyof typeof methods;
export type MethodInput<M extends MethodName> = z.input<(typeof methods)[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<(typeof methods)[M]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;

/** What every face implements or calls. */
export type LabApi = { [M in MethodName]: (input: MethodInput<M>) => Promise<MethodOutput<M>> };

export const methodNames = Object.keys(methods) as MethodName[];
export const eventNames = Object.keys(events) as EventName[];

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, name);
}

/** Error shape both transports return. */
export const ApiError = z.object({ error: z.string(), code: z.enum(['bad_request', 'not_found', 'failed', 'unauthorized', 'forbidden']) });
export type ApiError = z.infer<typeof ApiError>;
