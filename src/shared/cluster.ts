// Cluster sweeps: what `caplab cluster submit` writes, what each Slurm array task writes, what `status` and
// `collect` report. snake_case: these are files on shared storage and `--json` output (add fields, never rename).
import { z } from 'zod';
import { DeviceInfo, Sample } from './device';
import { Plan } from './plan';
import { CapRestore, RunRecord, SweepStatus } from './records';

/** The job folder's manifest.json: the whole plan and its shards, so `collect` needs nothing but the folder. */
export const ClusterManifest = z.object({
  schema: z.literal('caplab.cluster-job/1'),
  name: z.string(),
  job_id: z.string().nullable(),
  created_at: z.number(),
  plan: Plan,
  shard_by: z.enum(['node', 'caps', 'repetitions']),
  nodes: z.number().int().positive(),
  shards: z.array(z.object({ index: z.number().int().nonnegative(), repetition_offset: z.number().int().nonnegative(), plan: Plan })),
  script: z.string(),
});
export type ClusterManifest = z.infer<typeof ClusterManifest>;

export const TaskRunDevice = z.object({
  index: z.number().int(),
  energy_j: z.number().nullable(),
  mean_power_w: z.number().nullable(),
  energy_sensor: z.string().nullable(),
  enforced_limit_w: z.number().nullable(),
});

export const TaskRun = z.object({
  run: RunRecord,
  devices: z.array(TaskRunDevice),
  /** The run's samples, per device index (finished runs only). */
  samples: z.array(Sample.extend({ index: z.number().int() })),
  metrics: z.array(z.object({ t: z.number(), name: z.string(), value: z.number() })),
});
export type TaskRun = z.infer<typeof TaskRun>;

/** results/task-<i>.json, rewritten (atomically) by the array task after every run. */
export const TaskResult = z.object({
  schema: z.literal('caplab.cluster-task/1'),
  task: z.number().int().nonnegative(),
  slurm_job_id: z.string().nullable(),
  array_job_id: z.string().nullable(),
  /** The Slurm node name (SLURMD_NODENAME); several virtual nodes can share one host. */
  node: z.string(),
  hostname: z.string(),
  backend: z.string(),
  simulated: z.boolean(),
  /** GPUs of the node as the backend reports them (name, UUID, driver, limits). */
  devices: z.array(DeviceInfo),
  drivers: z.array(z.string()),
  status: z.enum(['starting', 'running', 'done', 'failed', 'cancelled', 'interrupted']),
  error: z.string().nullable(),
  /** Limits a killed earlier task left changed on this node, restored when this one started. */
  restored_at_open: z.array(CapRestore),
  /** Limits restored when this task's sweep ended. */
  restored: z.array(CapRestore),
  started_at: z.number(),
  updated_at: z.number(),
  runs: z.array(TaskRun),
});
export type TaskResult = z.infer<typeof TaskResult>;

/** A run in progress as the Prometheus exporter labels it (CapLab's own metrics beside DCGM's). */
export const ActiveRun = RunRecord.pick({ sweep_id: true, workload: true, cap_w: true, repetition: true }).extend({
  run_id: z.number().int(),
  /** setting-cap | warmup | measure | cooldown, or 'running' where the sub-phase is not known (another process's sweep). */
  phase: z.string(),
});
export type ActiveRun = z.infer<typeof ActiveRun>;

/** A submitted job as the lab database remembers it. */
export const ClusterJob = z.object({
  job_id: z.string(),
  name: z.string(),
  dir: z.string(),
  shard_by: z.string(),
  tasks: z.number().int(),
  nodes: z.number().int(),
  submitted_at: z.number(),
  sweep_id: z.number().int().nullable(),
});
export type ClusterJob = z.infer<typeof ClusterJob>;

export const ClusterTaskStatus = z.object({
  task: z.number().int(),
  /** Slurm's state (PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, ...) or, once Slurm forgot the task, the result file's. */
  state: z.string(),
  node: z.string().nullable(),
  runs_done: z.number().int(),
  run_count: z.number().int(),
  result_status: z.string().nullable(),
  /** From the task's result file: the node's hostname, its GPUs (index: name (UUID)) and drivers. */
  hostname: z.string().nullable(),
  gpus: z.array(z.string()),
  drivers: z.array(z.string()),
});
export type ClusterTaskStatus = z.infer<typeof ClusterTaskStatus>;

export const ClusterStatus = z.object({
  job_id: z.string(),
  name: z.string(),
  dir: z.string(),
  /** running while Slurm still lists a task; then done, failed or cancelled from the tasks' states. */
  state: z.enum(['pending', 'running', 'done', 'failed', 'cancelled']),
  tasks: z.array(ClusterTaskStatus),
  runs_done: z.number().int(),
  run_count: z.number().int(),
  sweep_id: z.number().int().nullable(),
  source: z.string(),
});
export type ClusterStatus = z.infer<typeof ClusterStatus>;

export const CollectResult = z.object({
  job_id: z.string(),
  sweep_id: z.number().int(),
  status: SweepStatus,
  tasks_found: z.number().int(),
  tasks: z.number().int(),
  runs: z.number().int(),
  runs_done: z.number().int(),
  /** Runs added or updated by this collect (0 when nothing changed: collect is idempotent). */
  changed: z.number().int(),
  nodes: z.array(z.object({ node: z.string(), hostname: z.string(), gpus: z.array(z.string()), drivers: z.array(z.string()) })),
  warnings: z.array(z.string()),
});
export type CollectResult = z.infer<typeof CollectResult>;

/** One stat across nodes or GPUs at one cap. */
export const Spread = z.object({
  n: z.number().int(),
  mean: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  /** (max - min) / mean, as a fraction. */
  range_rel: z.number().nullable(),
  cv: z.number().nullable(),
});
export type Spread = z.infer<typeof Spread>;

export const NodeCapStats = z.object({
  cap_w: z.number(),
  per_node: z.array(z.object({ node: z.string(), runs: z.number().int(), throughput: z.number().nullable(), power_w: z.number().nullable(), efficiency: z.number().nullable() })),
  per_gpu: z.array(z.object({ node: z.string(), gpu: z.number().int(), uuid: z.string().nullable(), power_w: z.number().nullable(), energy_j: z.number().nullable() })),
  throughput: Spread,
  power_w: Spread,
  efficiency: Spread,
  /** Mean power of each GPU across the fleet: the GPU-to-GPU spread. */
  gpu_power_w: Spread,
  /** Nodes whose throughput, power or efficiency at this cap is an outlier (robust z-score over the nodes). */
  outliers: z.array(z.object({ node: z.string(), metric: z.enum(['throughput', 'power_w', 'efficiency']), value: z.number(), z: z.number() })),
});
export type NodeCapStats = z.infer<typeof NodeCapStats>;

export const NodeGroup = z.object({
  workload: z.string(),
  nodes: z.array(z.string()),
  caps: z.array(NodeCapStats),
  best_cap_per_node: z.array(z.object({ node: z.string(), cap_w: z.number().nullable(), efficiency: z.number().nullable() })),
  /** The cap with the highest efficiency averaged over the nodes (caps every node ran). */
  fleet_best_cap: z.object({ cap_w: z.number().nullable(), efficiency: z.number().nullable() }),
  outlier_nodes: z.array(z.string()),
});
export type NodeGroup = z.infer<typeof NodeGroup>;

export const NodeAnalysis = z.object({
  schema: z.literal('caplab.node-analysis/1'),
  sweep_id: z.number().int(),
  groups: z.array(NodeGroup),
  notes: z.array(z.string()),
});
export type NodeAnalysis = z.infer<typeof NodeAnalysis>;
