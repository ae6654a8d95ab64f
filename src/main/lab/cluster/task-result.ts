// A Slurm array task's runs (src/main/cli/cluster-task.ts runs the task and writes its results file): the shard's runs
// read from the node-local database with their per-GPU figures, samples and metrics.
import type { Db } from '../store/db';
import { runsOfSweep } from '../store/sweeps';
import { allMetricsOfRun, samplesOfRun } from '../store/samples';
import { runDeviceFigures } from '../store/devices';
import type { RunRecord } from '../../../shared/records';
import type { TaskRun } from '../../../shared/cluster';

const TERMINAL = new Set(['done', 'failed', 'cancelled']);

/** A run with its per-GPU figures, and, once it has ended, its samples and throughput metrics. */
function taskRun(db: Db, run: RunRecord): TaskRun {
  const devs = runDeviceFigures(db, run.id);
  const finished = TERMINAL.has(run.status);
  return {
    run,
    devices: devs.map((d) => ({ index: d.idx, energy_j: d.energy_j, mean_power_w: d.mean_power_w, energy_sensor: d.energy_sensor, enforced_limit_w: d.enforced_limit_w })),
    samples: finished ? devs.flatMap((d) => samplesOfRun(db, run.id, d.device_id).map((s) => ({ ...s, device_id: `${d.idx}`, index: d.idx }))) : [],
    metrics: finished ? allMetricsOfRun(db, run.id) : [],
  };
}

/** The sweep's runs as the results file carries them. */
export function taskRuns(db: Db, sweepId: number): TaskRun[] {
  return runsOfSweep(db, sweepId).map((r) => taskRun(db, r));
}
