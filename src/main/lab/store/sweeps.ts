import type { Db } from './db';
import { Plan } from '../../../shared/plan';
import type { PlannedRun } from '../../../shared/plan';
import type { RunRecord, SweepRecord, SweepStatus } from '../../../shared/records';

export interface NewSweep {
  name: string;
  plan: Plan;
  host: string;
  backend: string;
  simulated: boolean;
}

/** Creates the sweep and all its planned runs in one transaction, so a sweep is never half-written. */
export function createSweep(db: Db, s: NewSweep, runs: readonly PlannedRun[]): { sweepId: number; runIds: number[] } {
  return db.transaction(() => {
    const info = db
      .prepare('INSERT INTO sweeps (name, plan, status, host, backend, simulated, pid, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(s.name, JSON.stringify(s.plan), 'running', s.host, s.backend, s.simulated ? 1 : 0, process.pid, Date.now() / 1000);
    const sweepId = Number(info.lastInsertRowid);
    const stmt = db.prepare('INSERT INTO runs (sweep_id, workload, cap_w, repetition, run_order, status) VALUES (?, ?, ?, ?, ?, ?)');
    const runIds = runs.map((r) => Number(stmt.run(sweepId, r.workload, r.cap_w, r.repetition, r.order, 'pending').lastInsertRowid));
    return { sweepId, runIds };
  })();
}

/** Adds runs to a running sweep (adaptive refinement); returns their ids. */
export function appendRuns(db: Db, sweepId: number, runs: readonly PlannedRun[]): number[] {
  const stmt = db.prepare('INSERT INTO runs (sweep_id, workload, cap_w, repetition, run_order, status) VALUES (?, ?, ?, ?, ?, ?)');
  return db.transaction(() => runs.map((r) => Number(stmt.run(sweepId, r.workload, r.cap_w, r.repetition, r.order, 'pending').lastInsertRowid)))();
}

export function finishSweep(db: Db, sweepId: number, status: SweepStatus, error: string | null): void {
  db.prepare('UPDATE sweeps SET status = ?, error = ?, finished_at = ? WHERE id = ?').run(status, error, Date.now() / 1000, sweepId);
}

/**
 * Sweeps left 'running' by a process that is gone (killed) become 'interrupted'; their running runs 'failed'.
 * Sweeps merged from a Slurm job (host `slurm:JOB`) live as long as the job, not a local process: collect decides.
 */
export function markInterruptedSweeps(db: Db, isAlive: (pid: number) => boolean): number[] {
  const stale = (db.prepare("SELECT id, pid FROM sweeps WHERE status = 'running' AND host NOT LIKE 'slurm:%'").all() as { id: number; pid: number | null }[]).filter(
    (s) => s.pid == null || !isAlive(s.pid),
  );
  db.transaction(() => {
    for (const s of stale) {
      db.prepare("UPDATE sweeps SET status = 'interrupted', error = 'the sweep process was killed', finished_at = ? WHERE id = ?").run(Date.now() / 1000, s.id);
      db.prepare("UPDATE runs SET status = 'failed', error = 'interrupted: the sweep process was killed' WHERE sweep_id = ? AND status = 'running'").run(s.id);
    }
  })();
  return stale.map((s) => s.id);
}

export type RunUpdate = Partial<Omit<RunRecord, 'id' | 'sweep_id' | 'workload' | 'cap_w' | 'repetition' | 'order'>> & { output_tail?: string };

export function updateRun(db: Db, runId: number, u: RunUpdate): void {
  const keys = Object.keys(u) as (keyof RunUpdate)[];
  if (keys.length === 0) return;
  const set = keys.map((k) => `${k} = @${k}`).join(', ');
  db.prepare(`UPDATE runs SET ${set} WHERE id = @id`).run({ ...u, id: runId });
}

/** Every run of a sweep that has not ended becomes 'cancelled': one statement, fast for the largest plans. */
export function cancelOpenRuns(db: Db, sweepId: number): void {
  db.prepare("UPDATE runs SET status = 'cancelled' WHERE sweep_id = ? AND status IN ('pending', 'running')").run(sweepId);
}

interface SweepRow {
  id: number;
  name: string;
  plan: string;
  status: SweepStatus;
  host: string;
  backend: string;
  simulated: number;
  error: string | null;
  created_at: number;
  finished_at: number | null;
  run_count: number;
  runs_done: number;
}

const sweepSelect = `SELECT s.id, s.name, s.plan, s.status, s.host, s.backend, s.simulated, s.error, s.created_at, s.finished_at,
  (SELECT COUNT(*) FROM runs r WHERE r.sweep_id = s.id) AS run_count,
  (SELECT COUNT(*) FROM runs r WHERE r.sweep_id = s.id AND r.status IN ('done', 'failed')) AS runs_done
  FROM sweeps s`;

function toSweep(r: SweepRow): SweepRecord {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    host: r.host,
    backend: r.backend,
    simulated: r.simulated === 1,
    created_at: r.created_at,
    finished_at: r.finished_at,
    plan: Plan.parse(JSON.parse(r.plan)),
    error: r.error,
    run_count: r.run_count,
    runs_done: r.runs_done,
  };
}

export function listSweeps(db: Db, search?: string): SweepRecord[] {
  const rows = search
    ? (db.prepare(`${sweepSelect} WHERE s.name LIKE @q OR s.plan LIKE @q OR s.backend LIKE @q ORDER BY s.id DESC`).all({ q: `%${search}%` }) as SweepRow[])
    : (db.prepare(`${sweepSelect} ORDER BY s.id DESC`).all() as SweepRow[]);
  return rows.map(toSweep);
}

export function getSweep(db: Db, sweepId: number): SweepRecord | undefined {
  const row = db.prepare(`${sweepSelect} WHERE s.id = ?`).get(sweepId) as SweepRow | undefined;
  return row && toSweep(row);
}

const runSelect = `SELECT id, sweep_id, workload, cap_w, repetition, run_order AS "order", status, exit_code, error, started_at, ended_at,
  warmup_end, measure_start, measure_end, units, throughput, mean_power_w, energy_j, efficiency, energy_sensor, enforced_limit_w FROM runs`;

export function runsOfSweep(db: Db, sweepId: number): RunRecord[] {
  return db.prepare(`${runSelect} WHERE sweep_id = ? ORDER BY run_order`).all(sweepId) as RunRecord[];
}

export function getRun(db: Db, runId: number): RunRecord | undefined {
  return db.prepare(`${runSelect} WHERE id = ?`).get(runId) as RunRecord | undefined;
}

export function runOutputTail(db: Db, runId: number): string | null {
  const row = db.prepare('SELECT output_tail FROM runs WHERE id = ?').get(runId) as { output_tail: string | null } | undefined;
  return row?.output_tail ?? null;
}

export function deleteSweep(db: Db, sweepId: number): boolean {
  return db.transaction(() => {
    db.prepare('DELETE FROM samples WHERE sweep_id = ?').run(sweepId);
    return db.prepare('DELETE FROM sweeps WHERE id = ?').run(sweepId).changes > 0;
  })();
}

export function recordRunDevice(
  db: Db,
  runId: number,
  deviceId: number,
  v: { energy_j: number | null; mean_power_w: number | null; energy_sensor: string | null; enforced_limit_w: number | null },
): void {
  db.prepare(
    `INSERT OR REPLACE INTO run_devices (run_id, device_id, energy_j, mean_power_w, energy_sensor, enforced_limit_w)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(runId, deviceId, v.energy_j, v.mean_power_w, v.energy_sensor, v.enforced_limit_w);
}
