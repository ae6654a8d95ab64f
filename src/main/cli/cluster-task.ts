// One Slurm array task: CapLab's own sweep of one shard on this node's GPUs (node-local database and journal),
// its results rewritten to a per-task file on shared storage after every run, so `collect` sees partial results.
// Driven from `caplab cluster task`: a face of the engine, so it lives beside the CLI, not in lab/cluster.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { Engine } from '../lab';
import type { Plan } from '../../shared/plan';
import type { DeviceInfo } from '../../shared/device';
import type { CapRestore } from '../../shared/records';
import type { TaskResult } from '../../shared/cluster';

/** Written to a temp file and renamed: a reader on shared storage never sees half a file. */
function writeTaskResult(file: string, result: TaskResult): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(result) + '\n');
  renameSync(tmp, file);
}

export interface TaskOptions {
  engine: Engine;
  plan: Plan;
  task: number;
  out: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

export interface ClusterTask {
  /** Resolves with the sweep's final status once the results file is final. */
  done: Promise<TaskResult['status']>;
  cancel(): void;
}

/** Starts the shard's sweep; the results file exists (status starting) before any limit is touched. */
export async function startClusterTask(o: TaskOptions): Promise<ClusterTask> {
  const { engine, plan, env } = o;
  const listGpus = async () => {
    const listed = await engine.listDevices({ backend: plan.backend === 'auto' ? undefined : plan.backend }).catch(() => null);
    return { backend: listed?.backend ?? plan.backend, gpus: listed?.devices.filter((d) => d.kind === 'gpu') ?? [] };
  };
  const identify = (found: { backend: string; gpus: DeviceInfo[] }) => {
    result.backend = found.backend;
    result.simulated = found.gpus.some((d) => d.simulated);
    result.devices = found.gpus;
    result.drivers = [...new Set(found.gpus.map((d) => d.driver).filter((d): d is string => d !== null))];
  };
  const result: TaskResult = {
    schema: 'caplab.cluster-task/1',
    task: o.task,
    slurm_job_id: env.SLURM_JOB_ID ?? null,
    array_job_id: env.SLURM_ARRAY_JOB_ID ?? null,
    node: env.SLURMD_NODENAME ?? hostname().split('.')[0]!,
    hostname: hostname(),
    backend: plan.backend,
    simulated: false,
    devices: [],
    drivers: [],
    status: 'starting',
    error: null,
    restored_at_open: engine.restoredAtOpen,
    restored: [],
    started_at: Date.now() / 1000,
    updated_at: Date.now() / 1000,
    runs: [],
  };
  identify(await listGpus());
  let sweepId: number | null = null;
  const snapshot = () => {
    result.updated_at = Date.now() / 1000;
    if (sweepId !== null) result.runs = engine.clusterTaskRuns(sweepId);
    writeTaskResult(o.out, result);
  };
  snapshot();
  for (const r of engine.restoredAtOpen) o.log(`restored ${r.device_name} to ${r.before_w} W, left at ${r.was_w ?? '?'} W by an earlier task that was killed`);

  let restored: CapRestore[] = [];
  const unsubscribe = engine.subscribe((name, payload) => {
    if (name === 'run.finished') snapshot();
    if (name === 'sweep.finished') restored = payload.restored;
  });
  let sweep;
  try {
    sweep = await engine.beginSweep(plan);
  } catch (e) {
    unsubscribe();
    result.status = 'failed';
    result.error = (e as Error).message;
    snapshot();
    throw e;
  }
  sweepId = sweep.sweepId;
  // Again now the sweep's backend is open: simulated GPUs exist as the plan asked only from here on.
  identify(await listGpus());
  result.status = 'running';
  snapshot();
  const done = sweep.done.then(async (status) => {
    unsubscribe();
    result.status = status;
    result.error = (await engine.getSweep({ sweep_id: sweep.sweepId })).sweep.error;
    result.restored = restored;
    snapshot();
    return result.status;
  });
  return { done, cancel: () => sweep.cancel() };
}
