// One Slurm array task: CapLab's own sweep of one shard on this node's GPUs (node-local database and journal),
// its results rewritten to a per-task file on shared storage after every run, so `collect` sees partial results.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { hostname } from 'node:os';
import type { Engine } from '../engine';
import type { Db } from '../store/db';
import { runsOfSweep } from '../store/sweeps';
import { samplesOfRun } from '../store/samples';
import type { Plan } from '../../../shared/plan';
import type { DeviceInfo } from '../../../shared/device';
import type { CapRestore, RunRecord } from '../../../shared/records';
import type { TaskResult, TaskRun } from '../../../shared/cluster';

const TERMINAL = new Set(['done', 'failed', 'cancelled']);

interface RunDeviceRow {
  device_id: number;
  idx: number;
  energy_j: number | null;
  mean_power_w: number | null;
  energy_sensor: string | null;
  enforced_limit_w: number | null;
}

function runDevices(db: Db, runId: number): RunDeviceRow[] {
  return db
    .prepare(
      `SELECT rd.device_id, d.idx, rd.energy_j, rd.mean_power_w, rd.energy_sensor, rd.enforced_limit_w
       FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = ? ORDER BY d.idx`,
    )
    .all(runId) as RunDeviceRow[];
}

function runMetrics(db: Db, runId: number): { t: number; name: string; value: number }[] {
  return db.prepare('SELECT t, name, value FROM metrics WHERE run_id = ? ORDER BY id').all(runId) as { t: number; name: string; value: number }[];
}

/** A run with its per-GPU figures, and, once it has ended, its samples and throughput metrics. */
function taskRun(db: Db, run: RunRecord): TaskRun {
  const devs = runDevices(db, run.id);
  const finished = TERMINAL.has(run.status);
  return {
    run,
    devices: devs.map((d) => ({ index: d.idx, energy_j: d.energy_j, mean_power_w: d.mean_power_w, energy_sensor: d.energy_sensor, enforced_limit_w: d.enforced_limit_w })),
    samples: finished ? devs.flatMap((d) => samplesOfRun(db, run.id, d.device_id).map((s) => ({ ...s, device_id: `${d.idx}`, index: d.idx }))) : [],
    metrics: finished ? runMetrics(db, run.id) : [],
  };
}

/** Written to a temp file and renamed: a reader on shared storage never sees half a file. */
function writeResult(file: string, result: TaskResult): void {
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
    if (sweepId !== null) result.runs = runsOfSweep(engine.db, sweepId).map((r) => taskRun(engine.db, r));
    writeResult(o.out, result);
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
  const done = sweep.done.then((status) => {
    unsubscribe();
    const record = engine.db.prepare('SELECT error FROM sweeps WHERE id = ?').get(sweepId) as { error: string | null } | undefined;
    result.status = status;
    result.error = record?.error ?? null;
    result.restored = restored;
    snapshot();
    return result.status;
  });
  return { done, cancel: () => sweep.cancel() };
}
