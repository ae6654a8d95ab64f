// `caplab cluster status`: Slurm's view of the job's tasks (squeue, then sacct where accounting runs), completed
// by the tasks' own result files (Slurm forgets finished tasks after MinJobAge, and sacct needs slurmdbd).
import { scheduleRuns } from '../../../core/schedule';
import type { ClusterJob, ClusterStatus, ClusterTaskStatus, TaskResult } from '../../../shared/cluster';
import { gpuNames, readManifest, readTaskResults } from './collect';
import { sacct, squeue, type SlurmEnv, type SlurmTask } from './slurm';

const FROM_RESULT: Record<TaskResult['status'], string> = {
  starting: 'RUNNING',
  running: 'RUNNING',
  done: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  interrupted: 'FAILED',
};

function overall(queued: SlurmTask[], tasks: ClusterTaskStatus[]): ClusterStatus['state'] {
  if (queued.length > 0) return queued.every((t) => t.state === 'PENDING') ? 'pending' : 'running';
  if (tasks.every((t) => t.state === 'COMPLETED' && t.result_status === 'done')) return 'done';
  if (tasks.some((t) => t.state.startsWith('CANCELLED') || t.result_status === 'cancelled')) return 'cancelled';
  return 'failed';
}

export async function jobStatus(job: ClusterJob, slurm: SlurmEnv): Promise<ClusterStatus> {
  const manifest = readManifest(job.dir);
  const queued = await squeue(job.job_id, slurm);
  const accounted = queued.length === manifest.shards.length ? null : await sacct(job.job_id, slurm);
  const { results } = readTaskResults(job.dir);
  const tasks = manifest.shards.map((s): ClusterTaskStatus => {
    const q = queued.find((t) => t.task === s.index) ?? accounted?.find((t) => t.task === s.index);
    const r = results.find((x) => x.task === s.index);
    const doneRuns = r?.runs.filter((x) => x.run.status === 'done' || x.run.status === 'failed').length ?? 0;
    return {
      task: s.index,
      // A task that left the queue with a 'running' result file was killed before it could write its end.
      state: q?.state ?? (r ? (r.status === 'running' || r.status === 'starting' ? 'KILLED' : FROM_RESULT[r.status]) : 'UNKNOWN'),
      node: q?.node ?? r?.node ?? null,
      runs_done: doneRuns,
      run_count: Math.max(scheduleRuns(s.plan).length, r?.runs.length ?? 0),
      result_status: r?.status ?? null,
      hostname: r?.hostname ?? null,
      gpus: r ? gpuNames(r) : [],
      drivers: r?.drivers ?? [],
    };
  });
  return {
    job_id: job.job_id,
    name: job.name,
    dir: job.dir,
    state: overall(queued, tasks),
    tasks,
    runs_done: tasks.reduce((a, t) => a + t.runs_done, 0),
    run_count: tasks.reduce((a, t) => a + t.run_count, 0),
    sweep_id: job.sweep_id,
    source: accounted ? 'squeue + sacct + result files' : 'squeue + result files',
  };
}

/** Whether Slurm still lists a task of the job. */
export async function jobActive(jobId: string, slurm: SlurmEnv): Promise<boolean> {
  return (await squeue(jobId, slurm)).length > 0;
}
