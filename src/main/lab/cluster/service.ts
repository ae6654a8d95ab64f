// The cluster slice (src/shared/api/cluster.ts) over one lab database: the Slurm jobs it submitted (submitClusterJob,
// `caplab cluster submit`'s door), their status, collecting and cancelling them, and a merged sweep's nodes compared.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import type { Db } from '../store/db';
import type { ClusterJob, TaskRun } from '../../../shared/cluster';
import type { EngineContext } from '../engine-context';
import { collectJob, readManifest } from './collect';
import { getJob, listJobs, registerJob } from '../store/cluster-jobs';
import { jobActive, jobStatus } from './status';
import { scancel, squeue } from './slurm';
import { submitJob, type Prepared } from './submit';
import { taskRuns } from './task-result';
import { analyzeSweepNodes } from './node-analysis';
import { LabError } from '../../../shared/errors';

/** How long cancelCluster with `wait` waits for Slurm to list none of the job's tasks. */
const CANCEL_WAIT_MS = 120_000;

export class ClusterError extends LabError {
  constructor(message: string) {
    super('not_found', message);
    this.name = 'ClusterError';
  }
}

/** JOB is a job id this database submitted, or a job folder (its manifest names the job id). */
function resolveJob(db: Db, job: string): ClusterJob {
  const known = getJob(db, job);
  if (known) return known;
  const dir = resolve(job);
  if (existsSync(join(dir, 'manifest.json'))) {
    const m = readManifest(dir);
    if (!m.job_id) throw new ClusterError(`${dir}: the job was never submitted (no job id in manifest.json)`);
    const existing = getJob(db, m.job_id);
    if (existing && resolve(existing.dir) === dir) return existing;
    registerJob(db, { job_id: m.job_id, name: m.name, dir, shard_by: m.shard_by, tasks: m.shards.length, nodes: m.nodes, submitted_at: m.created_at });
    return getJob(db, m.job_id)!;
  }
  throw new ClusterError(`no cluster job "${job}" in this database; give its job folder (the one with manifest.json) instead`);
}

export class ClusterService implements SliceApi<'cluster'> {
  constructor(private readonly ctx: EngineContext) {}

  /** Submits a prepared job folder with sbatch and records the job (`caplab cluster submit`); returns the job id. */
  submitClusterJob(prepared: Prepared): Promise<string> {
    this.ctx.writable('submit a cluster job');
    return submitJob(this.ctx.db, prepared, { env: this.ctx.env });
  }

  /** A Slurm array task's sweep as its results file carries it (`caplab cluster task`): runs with per-GPU figures. */
  clusterTaskRuns(sweepId: number): TaskRun[] {
    return taskRuns(this.ctx.db, sweepId);
  }

  async listClusterJobs(_input: MethodInput<'listClusterJobs'>): Promise<MethodOutput<'listClusterJobs'>> {
    return listJobs(this.ctx.db);
  }

  async clusterStatus(input: MethodInput<'clusterStatus'>): Promise<MethodOutput<'clusterStatus'>> {
    return jobStatus(resolveJob(this.ctx.db, input.job), { env: this.ctx.env });
  }

  async collectCluster(input: MethodInput<'collectCluster'>): Promise<MethodOutput<'collectCluster'>> {
    this.ctx.writable('collect a cluster job');
    const j = resolveJob(this.ctx.db, input.job);
    return collectJob(this.ctx.db, j, await jobActive(j.job_id, { env: this.ctx.env }));
  }

  /**
   * scancel: Slurm sends each running task SIGTERM, and each task's sweep restores its node's limits itself before
   * it exits. With wait, returns once Slurm lists none of the job's tasks (or after CANCEL_WAIT_MS).
   */
  async cancelCluster(input: MethodInput<'cancelCluster'>): Promise<MethodOutput<'cancelCluster'>> {
    const slurm = { env: this.ctx.env };
    const j = resolveJob(this.ctx.db, input.job);
    await scancel(j.job_id, slurm);
    let remaining = (await squeue(j.job_id, slurm)).length;
    const until = Date.now() + CANCEL_WAIT_MS;
    while (input.wait === true && remaining > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 500));
      remaining = (await squeue(j.job_id, slurm)).length;
    }
    return { job_id: j.job_id, cancelled: true, remaining };
  }

  async analyzeNodes(input: MethodInput<'analyzeNodes'>): Promise<MethodOutput<'analyzeNodes'>> {
    return analyzeSweepNodes(this.ctx.db, input.sweep_id);
  }
}
