// `caplab cluster submit`: plan -> shards -> one sbatch array script in a job folder on shared storage -> sbatch.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { shardPlan, ShardError } from '../../../core/cluster/shard';
import type { Plan } from '../../../shared/plan';
import type { ClusterManifest } from '../../../shared/cluster';
import { planToYaml } from '../sweep/plan-file';
import { userWorkloadsDir } from '../runner/workloads';
import { selfCommand } from '../process/self-command';
import { VERSION } from '../environment/version';
import type { Db } from '../store/db';
import { registerJob } from '../store/cluster-jobs';
import { renderScript } from './script';
import { sbatch, type SlurmEnv } from './slurm';

export { ShardError };

export interface SubmitOptions {
  nodes: number;
  partition?: string;
  gpusPerNode?: string;
  time?: string;
  account?: string;
  /** Job folder (default ./caplab-jobs/<name>-<time> under the current directory). */
  dir?: string;
  env: NodeJS.ProcessEnv;
  now?: Date;
}

export interface Prepared {
  dir: string;
  script: string;
  manifest: ClusterManifest;
}

function slug(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'sweep';
}

/** Builds the shards and the script; writes nothing. */
export function prepareJob(plan: Plan, o: SubmitOptions): Prepared {
  const now = o.now ?? new Date();
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const dir = resolve(o.dir ?? join('caplab-jobs', `${slug(plan.name)}-${stamp}`));
  const shards = shardPlan(plan, o.nodes);
  const shardBy = plan.cluster?.shard_by ?? 'node';
  const script = renderScript({
    name: plan.name,
    jobDir: dir,
    nodes: o.nodes,
    shardBy,
    shards,
    partition: o.partition,
    gpusPerNode: o.gpusPerNode,
    time: o.time,
    account: o.account,
    // Absolute paths: the task starts in Slurm's working directory, not this one.
    caplab: selfCommand(o.env).map((a) => (existsSync(a) ? resolve(a) : a)),
    workloadsDir: userWorkloadsDir(o.env),
    version: VERSION,
    createdAt: now,
  });
  return {
    dir,
    script,
    manifest: { schema: 'caplab.cluster-job/1', name: plan.name, job_id: null, created_at: now.getTime() / 1000, plan, shard_by: shardBy, nodes: o.nodes, shards, script: 'job.sbatch' },
  };
}

/** Writes the job folder (script, plan, manifest), submits, records the job id in the folder and the lab database. */
export async function submitJob(db: Db, p: Prepared, slurm: SlurmEnv): Promise<string> {
  mkdirSync(join(p.dir, 'results'), { recursive: true });
  mkdirSync(join(p.dir, 'logs'), { recursive: true });
  const scriptPath = join(p.dir, p.manifest.script);
  writeFileSync(scriptPath, p.script, { mode: 0o755 });
  writeFileSync(join(p.dir, 'plan.yaml'), planToYaml(p.manifest.plan));
  writeFileSync(join(p.dir, 'manifest.json'), JSON.stringify(p.manifest, null, 2) + '\n');
  const jobId = await sbatch(scriptPath, { ...slurm, cwd: p.dir });
  writeFileSync(join(p.dir, 'manifest.json'), JSON.stringify({ ...p.manifest, job_id: jobId }, null, 2) + '\n');
  registerJob(db, { job_id: jobId, name: p.manifest.name, dir: p.dir, shard_by: p.manifest.shard_by, tasks: p.manifest.shards.length, nodes: p.manifest.nodes, submitted_at: Date.now() / 1000 });
  return jobId;
}
