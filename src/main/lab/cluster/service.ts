// Cluster operations over one lab database, shared by the CLI (`caplab cluster ...`) and the engine's contract
// methods (the Cluster page).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Db } from '../store/db';
import type { ClusterJob, ClusterStatus, CollectResult } from '../../../shared/cluster';
import { collectJob, readManifest } from './collect';
import { getJob, listJobs, registerJob } from '../store/cluster-jobs';
import { jobActive, jobStatus } from './status';
import { scancel, squeue, type SlurmEnv } from './slurm';
import { LabError } from '../../../shared/errors';

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

export function clusterJobs(db: Db): ClusterJob[] {
  return listJobs(db);
}

export async function clusterStatus(db: Db, job: string, slurm: SlurmEnv): Promise<ClusterStatus> {
  return jobStatus(resolveJob(db, job), slurm);
}

export async function clusterCollect(db: Db, job: string, slurm: SlurmEnv): Promise<CollectResult> {
  const j = resolveJob(db, job);
  return collectJob(db, j, await jobActive(j.job_id, slurm));
}

/**
 * scancel: Slurm sends each running task SIGTERM, and each task's sweep restores its node's limits itself before
 * it exits. With wait, returns once Slurm lists none of the job's tasks (or after timeoutMs).
 */
export async function clusterCancel(db: Db, job: string, slurm: SlurmEnv, wait = false, timeoutMs = 120_000): Promise<{ job_id: string; cancelled: boolean; remaining: number }> {
  const j = resolveJob(db, job);
  await scancel(j.job_id, slurm);
  let remaining = (await squeue(j.job_id, slurm)).length;
  const until = Date.now() + timeoutMs;
  while (wait && remaining > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    remaining = (await squeue(j.job_id, slurm)).length;
  }
  return { job_id: j.job_id, cancelled: true, remaining };
}
