// `caplab cluster collect`: the array tasks' result files merged into the lab database as one sweep with a node
// dimension. Idempotent: a run already merged in a final state is left alone, so collecting again (while the job
// runs, to see partial results, or after) adds only what is new.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../store/db';
import { upsertDevice } from '../store/devices';
import { deleteRunMetrics, insertMetrics, writeSamples } from '../store/samples';
import { appendRuns, createSweep, finishSweep, getRun, recordRunDevice, reopenSweep, runCount, runTally, sweepExists, sweepStatusOf, updateRun } from '../store/sweeps';
import { withTransaction } from '../store/transaction';
import { ClusterManifest, TaskResult, type ClusterJob, type CollectResult, type TaskRun } from '../../../shared/cluster';
import type { SweepStatus } from '../../../shared/records';
import { linkRun, runLinks, saveNode, setJobSweep } from '../store/cluster-jobs';
import { LabError } from '../../../shared/errors';

export class CollectError extends LabError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'CollectError';
  }
}

const FINAL = new Set(['done', 'failed', 'cancelled']);

export function readManifest(dir: string): ClusterManifest {
  const file = join(dir, 'manifest.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CollectError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (is the job folder on storage this machine can see?)`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new CollectError(`${file} is not JSON: ${(e as Error).message}`);
  }
  const r = ClusterManifest.safeParse(json);
  if (!r.success) throw new CollectError(`${file} is not a CapLab cluster manifest: ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`);
  return r.data;
}

/** The task result files present in the job folder; unreadable ones are reported, not fatal. */
export function readTaskResults(dir: string): { results: TaskResult[]; warnings: string[] } {
  const rdir = join(dir, 'results');
  let names: string[];
  try {
    names = readdirSync(rdir).filter((n) => /^task-\d+\.json$/.test(n));
  } catch {
    return { results: [], warnings: [] };
  }
  const results: TaskResult[] = [];
  const warnings: string[] = [];
  for (const name of names) {
    try {
      const r = TaskResult.safeParse(JSON.parse(readFileSync(join(rdir, name), 'utf8')));
      if (r.success) results.push(r.data);
      else warnings.push(`${join(rdir, name)}: ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`);
    } catch (e) {
      warnings.push(`${join(rdir, name)}: ${(e as Error).message}`);
    }
  }
  return { results: results.sort((a, b) => a.task - b.task), warnings };
}

/** `index: name (UUID)` of each GPU a task's node reported. */
export function gpuNames(r: TaskResult): string[] {
  return r.devices.map((d) => `${d.index}: ${d.name}${d.uuid ? ` (${d.uuid})` : ''}`);
}

function sweepStatus(results: TaskResult[], tasks: number, jobActive: boolean): SweepStatus {
  if (jobActive) return 'running';
  if (results.length < tasks) return 'failed';
  const states = results.map((r) => r.status);
  if (states.every((s) => s === 'done')) return 'done';
  if (states.some((s) => s === 'cancelled')) return 'cancelled';
  return 'failed';
}

function mergeRun(db: Db, sweepId: number, runId: number, tr: TaskRun, deviceIds: Map<string, number>, jobActive: boolean): void {
  const r = tr.run;
  // A task killed mid-run never finishes its run: once the job is gone, that run failed.
  const orphaned = !jobActive && !FINAL.has(r.status);
  // Identity fields stay as merged (the repetition is renumbered, the order is the merged sweep's).
  // Figures (throughput, mean power, efficiency, node energy source) are computed from the stored facts when read.
  const { id: _id, sweep_id: _sweep, workload: _w, cap_w: _cap, repetition: _rep, order: _order, throughput: _tp, mean_power_w: _mp, efficiency: _eff, node_energy_source: _nes, ...outcome } = r;
  updateRun(db, runId, {
    ...outcome,
    status: orphaned ? 'failed' : r.status,
    error: orphaned ? 'interrupted: the array task ended before this run finished' : r.error,
  });
  if (!FINAL.has(r.status)) return;
  for (const d of tr.devices) {
    const id = deviceIds.get(`${d.index}`);
    if (id !== undefined) recordRunDevice(db, runId, id, d);
  }
  // A run reaches here once in a final state (later collects skip it), so its samples are written once; they
  // become its sweep's stream of the node's device, read back through the run's window.
  deleteRunMetrics(db, runId);
  for (const [index, row] of deviceIds) {
    const rows = tr.samples.filter((x) => x.device_id === index).map(({ device_id: _d, index: _i, ...x }) => x);
    if (rows.length) writeSamples(db, { sweep_id: sweepId }, row, rows);
  }
  insertMetrics(db, runId, tr.metrics);
}

/**
 * Merges what the tasks have written so far. jobActive: Slurm still lists a task of the job (then the sweep stays
 * 'running' and unfinished runs stay as they are).
 */
export function collectJob(db: Db, job: ClusterJob, jobActive: boolean): CollectResult {
  const manifest = readManifest(job.dir);
  const { results, warnings } = readTaskResults(job.dir);
  const offsets = new Map(manifest.shards.map((s) => [s.index, s.repetition_offset]));
  let changed = 0;
  const sweepId = withTransaction(db, () => {
    let id = job.sweep_id;
    if (id === null || !sweepExists(db, id)) {
      const first = results[0];
      id = createSweep(db, { name: manifest.name, plan: manifest.plan, host: `slurm:${job.job_id}`, backend: first?.backend ?? manifest.plan.backend, simulated: first?.simulated ?? manifest.plan.backend === 'sim' }, []).sweepId;
      setJobSweep(db, job.job_id, id);
    }
    const links = new Map(runLinks(db, id).map((l) => [`${l.task}:${l.task_run_id}`, l.run_id]));
    let order = runCount(db, id);
    for (const res of results) {
      const deviceIds = new Map(res.devices.map((d) => [`${d.index}`, upsertDevice(db, res.node, d)]));
      saveNode(db, id, { task: res.task, node: res.node, hostname: res.hostname, slurm_job_id: res.slurm_job_id, status: res.status, devices: res.devices });
      for (const tr of res.runs) {
        const key = `${res.task}:${tr.run.id}`;
        let runId = links.get(key);
        if (runId === undefined) {
          runId = appendRuns(db, id, [{ workload: tr.run.workload, cap_w: tr.run.cap_w, repetition: tr.run.repetition + (offsets.get(res.task) ?? 0), order: order++ }])[0]!;
          linkRun(db, id, { run_id: runId, task: res.task, task_run_id: tr.run.id, node: res.node, hostname: res.hostname });
        } else {
          const stored = getRun(db, runId);
          if (stored && FINAL.has(stored.status)) continue;
          if (stored && stored.status === tr.run.status && jobActive) continue;
        }
        mergeRun(db, id, runId, tr, deviceIds, jobActive);
        changed++;
      }
    }
    const status = sweepStatus(results, manifest.shards.length, jobActive);
    const errors = results.filter((r) => r.error).map((r) => `task ${r.task} (${r.node}): ${r.error}`);
    const missing = manifest.shards.filter((s) => !results.some((r) => r.task === s.index)).map((s) => s.index);
    if (!jobActive && missing.length) errors.push(`no results from task(s) ${missing.join(', ')}`);
    if (status === 'running') reopenSweep(db, id);
    else finishSweep(db, id, status, errors.length ? errors.join('; ') : null);
    return id;
  });
  const runs = runTally(db, sweepId);
  const status = sweepStatusOf(db, sweepId);
  return {
    job_id: job.job_id,
    sweep_id: sweepId,
    status,
    tasks_found: results.length,
    tasks: manifest.shards.length,
    runs: runs.n,
    runs_done: runs.d ?? 0,
    changed,
    nodes: results.map((r) => ({ node: r.node, hostname: r.hostname, gpus: gpuNames(r), drivers: r.drivers })),
    warnings,
  };
}
