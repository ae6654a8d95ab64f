// The lab database's record of cluster jobs and of which merged run came from which node (tables of migration v8).
import type { Db } from './db';
import type { ClusterJob } from '../../../shared/cluster';

export function registerJob(db: Db, job: Omit<ClusterJob, 'sweep_id'>): void {
  db.prepare(
    `INSERT INTO cluster_jobs (job_id, name, dir, shard_by, tasks, nodes, submitted_at) VALUES (@job_id, @name, @dir, @shard_by, @tasks, @nodes, @submitted_at)
     ON CONFLICT(job_id) DO UPDATE SET dir = excluded.dir`,
  ).run(job);
}

export function getJob(db: Db, jobId: string): ClusterJob | undefined {
  return db.prepare('SELECT * FROM cluster_jobs WHERE job_id = ?').get(jobId) as ClusterJob | undefined;
}

export function listJobs(db: Db): ClusterJob[] {
  return db.prepare('SELECT * FROM cluster_jobs ORDER BY submitted_at DESC').all() as ClusterJob[];
}

export function setJobSweep(db: Db, jobId: string, sweepId: number): void {
  db.prepare('UPDATE cluster_jobs SET sweep_id = ? WHERE job_id = ?').run(sweepId, jobId);
}

export interface ClusterRunLink {
  run_id: number;
  task: number;
  task_run_id: number;
  node: string;
  hostname: string;
}

export function runLinks(db: Db, sweepId: number): ClusterRunLink[] {
  return db.prepare('SELECT run_id, task, task_run_id, node, hostname FROM cluster_runs WHERE sweep_id = ?').all(sweepId) as ClusterRunLink[];
}

export function linkRun(db: Db, sweepId: number, l: ClusterRunLink): void {
  db.prepare('INSERT INTO cluster_runs (run_id, sweep_id, task, task_run_id, node, hostname) VALUES (?, ?, ?, ?, ?, ?)').run(l.run_id, sweepId, l.task, l.task_run_id, l.node, l.hostname);
}

export function saveNode(db: Db, sweepId: number, n: { task: number; node: string; hostname: string; slurm_job_id: string | null; status: string; devices: unknown }): void {
  db.prepare(
    `INSERT INTO cluster_nodes (sweep_id, task, node, hostname, slurm_job_id, status, devices) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(sweep_id, task) DO UPDATE SET node = excluded.node, hostname = excluded.hostname, slurm_job_id = excluded.slurm_job_id,
       status = excluded.status, devices = excluded.devices`,
  ).run(sweepId, n.task, n.node, n.hostname, n.slurm_job_id, n.status, JSON.stringify(n.devices));
}

/** The node each merged run ran on (empty for a sweep that did not come from a cluster). Reads only. */
export function nodeOfRuns(db: Db, sweepId: number): Map<number, { node: string; hostname: string }> {
  const rows = db.prepare('SELECT run_id, node, hostname FROM cluster_runs WHERE sweep_id = ?').all(sweepId) as { run_id: number; node: string; hostname: string }[];
  return new Map(rows.map((l) => [l.run_id, { node: l.node, hostname: l.hostname }]));
}
