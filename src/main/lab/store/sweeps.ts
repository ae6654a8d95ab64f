import type { Db } from './db';
import type { Plan } from '../../../shared/plan';
import { PLAN_SCHEMA_VERSION, readStoredPlan, type StoredPlan } from './stored-plan';
import type { PlannedRun } from '../../../shared/plan';
import { RunAdaptive, type RunRecord, type SweepRecord, type SweepStatus } from '../../../shared/records';
import { ExportEnvironment, type SoftwareRecord } from '../../../shared/export';
import { TuneStatus } from '../../../shared/tune';
import { runFigures } from '../../../core/analysis/figures';
import { closeSweepJournal } from './journal';

export interface NewSweep {
  name: string;
  plan: Plan;
  host: string;
  backend: string;
  simulated: boolean;
  /** The run record's software side (environment/environment.ts); null: not taken. */
  environment?: ExportEnvironment | null;
}

/** Creates the sweep and all its planned runs in one transaction, so a sweep is never half-written. */
export function createSweep(db: Db, s: NewSweep, runs: readonly PlannedRun[]): { sweepId: number; runIds: number[] } {
  return db.transaction(() => {
    const info = db
      .prepare('INSERT INTO sweeps (name, plan, plan_version, status, host, backend, simulated, pid, created_at, environment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(s.name, JSON.stringify(s.plan), PLAN_SCHEMA_VERSION, 'running', s.host, s.backend, s.simulated ? 1 : 0, process.pid, Date.now() / 1000, s.environment ? JSON.stringify(s.environment) : null);
    const sweepId = Number(info.lastInsertRowid);
    const stmt = db.prepare('INSERT INTO runs (sweep_id, workload, cap_w, repetition, run_order, status, reason) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const runIds = runs.map((r) => Number(stmt.run(sweepId, r.workload, r.cap_w, r.repetition, r.order, 'pending', r.reason ?? null).lastInsertRowid));
    return { sweepId, runIds };
  })();
}

/** Adds runs to a running sweep (adaptive refinement); returns their ids. */
export function appendRuns(db: Db, sweepId: number, runs: readonly PlannedRun[]): number[] {
  const stmt = db.prepare('INSERT INTO runs (sweep_id, workload, cap_w, repetition, run_order, status, reason) VALUES (?, ?, ?, ?, ?, ?, ?)');
  return db.transaction(() => runs.map((r) => Number(stmt.run(sweepId, r.workload, r.cap_w, r.repetition, r.order, 'pending', r.reason ?? null).lastInsertRowid)))();
}

/** Stores a tuning session's `tune.status`: at each stage, and its final one (getTuneStatus reads it back). */
export function setTuneStatus(db: Db, sweepId: number, status: TuneStatus): void {
  db.prepare('UPDATE sweeps SET tune_status = ? WHERE id = ?').run(JSON.stringify(status), sweepId);
}

/** Stores a tuning session's end report text (the sweep record's `tune_report`). */
export function setTuneReport(db: Db, sweepId: number, text: string): void {
  db.prepare('UPDATE sweeps SET tune_report = ? WHERE id = ?').run(text, sweepId);
}

/**
 * A tuning session's stored status: its final one, or the last stage it recorded (running, or its CapLab killed:
 * tune/interrupted.ts tells that); null for a sweep, and for a session killed before it recorded a stage.
 */
export function getTuneStatus(db: Db, sweepId: number): TuneStatus | null {
  const row = db.prepare('SELECT tune_status FROM sweeps WHERE id = ?').get(sweepId) as { tune_status: string | null } | undefined;
  return row?.tune_status ? TuneStatus.parse(JSON.parse(row.tune_status)) : null;
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

/** What a run stores: facts only (figures are computed when read). */
export type RunUpdate = Partial<Omit<RunRecord, 'id' | 'sweep_id' | 'workload' | 'cap_w' | 'repetition' | 'order' | 'throughput' | 'mean_power_w' | 'efficiency' | 'node_energy_source' | 'adaptive'>> & {
  output_tail?: string;
};

export function updateRun(db: Db, runId: number, u: RunUpdate): void {
  const keys = Object.keys(u) as (keyof RunUpdate)[];
  if (keys.length === 0) return;
  const set = keys.map((k) => `${k} = @${k}`).join(', ');
  db.prepare(`UPDATE runs SET ${set} WHERE id = @id`).run({ ...u, id: runId });
}

/** Merges what the adaptive plan decided for a run (window, cool-down) into its record. */
export function recordRunAdaptive(db: Db, runId: number, part: RunAdaptive): void {
  const row = db.prepare('SELECT adaptive FROM runs WHERE id = ?').get(runId) as { adaptive: string | null } | undefined;
  const merged = { ...(row?.adaptive ? (JSON.parse(row.adaptive) as RunAdaptive) : {}), ...part };
  db.prepare('UPDATE runs SET adaptive = ? WHERE id = ?').run(JSON.stringify(merged), runId);
}

/** Every run of a sweep that has not ended becomes 'cancelled': one statement, fast for the largest plans. */
export function cancelOpenRuns(db: Db, sweepId: number): void {
  db.prepare("UPDATE runs SET status = 'cancelled' WHERE sweep_id = ? AND status IN ('pending', 'running')").run(sweepId);
}

interface SweepRow {
  id: number;
  name: string;
  plan: string;
  plan_version: number;
  status: SweepStatus;
  host: string;
  backend: string;
  simulated: number;
  error: string | null;
  created_at: number;
  finished_at: number | null;
  run_count: number;
  runs_done: number;
  tags: string;
  notes: string;
  gpu_models: string | null;
  tune_report: string | null;
}

const sweepSelect = `SELECT s.id, s.name, s.plan, s.plan_version, s.status, s.host, s.backend, s.simulated, s.error, s.created_at, s.finished_at,
  (SELECT COUNT(*) FROM runs r WHERE r.sweep_id = s.id) AS run_count,
  (SELECT COUNT(*) FROM runs r WHERE r.sweep_id = s.id AND r.status IN ('done', 'failed')) AS runs_done,
  s.tags, s.notes, s.tune_report,
  (SELECT group_concat(name, char(31)) FROM (SELECT DISTINCT d.name FROM run_devices rd JOIN runs r ON r.id = rd.run_id JOIN devices d ON d.id = rd.device_id
    WHERE r.sweep_id = s.id AND d.kind = 'gpu' ORDER BY d.name)) AS gpu_models
  FROM sweeps s`;

/** A sweep's plan, read leniently (a plan from any earlier release opens; see stored-plan.ts). */
function storedPlan(db: Db, sweepId: number, json: string, version: number): StoredPlan {
  return readStoredPlan(json, version, () => {
    const runs = db.prepare('SELECT DISTINCT workload, cap_w FROM runs WHERE sweep_id = ?').all(sweepId) as { workload: string; cap_w: number }[];
    return { workloads: [...new Set(runs.map((r) => r.workload))], caps: [...new Set(runs.map((r) => r.cap_w))].sort((a, b) => a - b) };
  });
}

function toSweep(db: Db, r: SweepRow): SweepRecord {
  const { plan, notes } = storedPlan(db, r.id, r.plan, r.plan_version);
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    host: r.host,
    backend: r.backend,
    simulated: r.simulated === 1,
    created_at: r.created_at,
    finished_at: r.finished_at,
    plan,
    error: r.error,
    run_count: r.run_count,
    runs_done: r.runs_done,
    plan_notes: notes,
    tags: parseTags(r.tags),
    notes: r.notes,
    gpu_models: r.gpu_models ? r.gpu_models.split('\x1f') : [],
    tune_report: r.tune_report,
  };
}

/** Tags as stored (a JSON array); anything else written by hand reads as no tags rather than failing the list. */
function parseTags(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/** Sets a sweep's tags and/or notes (what is not given is kept); false when there is no such sweep. */
export function setSweepNotes(db: Db, sweepId: number, patch: { tags?: string[]; notes?: string }): boolean {
  const r = db
    .prepare('UPDATE sweeps SET tags = COALESCE(@tags, tags), notes = COALESCE(@notes, notes) WHERE id = @id')
    .run({ id: sweepId, tags: patch.tags === undefined ? null : JSON.stringify(patch.tags), notes: patch.notes ?? null });
  return r.changes > 0;
}

export function listSweeps(db: Db, search?: string): SweepRecord[] {
  const rows = search
    ? (db.prepare(`${sweepSelect} WHERE s.name LIKE @q OR s.plan LIKE @q OR s.backend LIKE @q OR s.tags LIKE @q OR s.notes LIKE @q ORDER BY s.id DESC`).all({ q: `%${search}%` }) as SweepRow[])
    : (db.prepare(`${sweepSelect} ORDER BY s.id DESC`).all() as SweepRow[]);
  return rows.map((r) => toSweep(db, r));
}

export function getSweep(db: Db, sweepId: number): SweepRecord | undefined {
  const row = db.prepare(`${sweepSelect} WHERE s.id = ?`).get(sweepId) as SweepRow | undefined;
  return row && toSweep(db, row);
}

const runSelect = `SELECT id, sweep_id, workload, cap_w, repetition, run_order AS "order", status, exit_code, error, started_at, ended_at,
  warmup_end, measure_start, measure_end, units, energy_j, energy_sensor, enforced_limit_w, units_in_window, gpus, cpu_energy_j, reason, adaptive FROM runs`;

type RunFactsRow = Omit<RunRecord, 'throughput' | 'mean_power_w' | 'efficiency' | 'node_energy_source' | 'adaptive'> & { adaptive: string | null };

/** Stored facts -> the run record with its figures, computed by the one definition in src/core. */
function withFigures(db: Db, rows: RunFactsRow[]): RunRecord[] {
  const overhead = new Map<number, number>();
  return rows.map((r) => {
    if (!overhead.has(r.sweep_id)) {
      const row = db.prepare('SELECT plan, plan_version FROM sweeps WHERE id = ?').get(r.sweep_id) as { plan: string; plan_version: number };
      overhead.set(r.sweep_id, storedPlan(db, r.sweep_id, row.plan, row.plan_version).plan.overhead_w);
    }
    const duration = r.measure_start !== null && r.measure_end !== null ? r.measure_end - r.measure_start : null;
    const gpus = r.gpus ?? 1;
    const f = runFigures({
      duration_s: duration,
      units_in_window: r.units_in_window,
      gpus,
      // The GPU energy is stored summed; per-GPU energies only matter to the figures through their sum.
      gpu: [{ energy_j: r.energy_j }],
      cpu: r.cpu_energy_j !== null ? [{ energy_j: r.cpu_energy_j }] : [],
      overhead_w: overhead.get(r.sweep_id)!,
      use_measured_cpu: true,
    });
    return {
      ...r,
      adaptive: r.adaptive ? RunAdaptive.parse(JSON.parse(r.adaptive)) : null,
      throughput: f.throughput,
      mean_power_w: f.mean_power_w,
      efficiency: f.efficiency,
      node_energy_source: f.node?.source ?? null,
    };
  });
}

export function runsOfSweep(db: Db, sweepId: number): RunRecord[] {
  return withFigures(db, db.prepare(`${runSelect} WHERE sweep_id = ? ORDER BY run_order`).all(sweepId) as RunFactsRow[]);
}

/** Up to `limit` runs of a sweep after position `after` (run order, then id), in that order. */
export function runsOfSweepAfter(db: Db, sweepId: number, after: { order: number; id: number } | null, limit: number): RunRecord[] {
  const rows = after
    ? db.prepare(`${runSelect} WHERE sweep_id = ? AND (run_order, id) > (?, ?) ORDER BY run_order, id LIMIT ?`).all(sweepId, after.order, after.id, limit)
    : db.prepare(`${runSelect} WHERE sweep_id = ? ORDER BY run_order, id LIMIT ?`).all(sweepId, limit);
  return withFigures(db, rows as RunFactsRow[]);
}

export function getRun(db: Db, runId: number): RunRecord | undefined {
  const row = db.prepare(`${runSelect} WHERE id = ?`).get(runId) as RunFactsRow | undefined;
  return row && withFigures(db, [row])[0];
}

/** The environment recorded when the sweep started, or null (older sweeps, unreadable JSON). */
export function sweepEnvironment(db: Db, sweepId: number): ExportEnvironment | null {
  const row = db.prepare('SELECT environment FROM sweeps WHERE id = ?').get(sweepId) as { environment: string | null } | undefined;
  if (!row?.environment) return null;
  try {
    const r = ExportEnvironment.safeParse(JSON.parse(row.environment));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** Adds the workloads' software (probed once the sweep has started) to its recorded environment. */
export function setSweepSoftware(db: Db, sweepId: number, software: SoftwareRecord): void {
  const row = db.prepare('SELECT environment FROM sweeps WHERE id = ?').get(sweepId) as { environment: string | null } | undefined;
  const env = row?.environment ? (JSON.parse(row.environment) as Record<string, unknown>) : {};
  db.prepare('UPDATE sweeps SET environment = ? WHERE id = ?').run(JSON.stringify({ ...env, software }), sweepId);
}

export function deleteSweep(db: Db, sweepId: number): boolean {
  // Streams, their sample blocks, runs and metrics go with it (ON DELETE CASCADE).
  return db.prepare('DELETE FROM sweeps WHERE id = ?').run(sweepId).changes > 0;
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

/**
 * A sweep's end: its row and its devices' journal rows (limits restored) in one transaction, small enough to fit the
 * room the WAL holds for it.
 */
export function recordSweepEnd(db: Db, sweepId: number, status: SweepStatus, error: string | null, restored: readonly { device_key: string; restored_w: number }[]): void {
  db.transaction(() => {
    finishSweep(db, sweepId, status, error);
    for (const r of restored) closeSweepJournal(db, sweepId, r.device_key, r.restored_w);
  })();
}

export function sweepExists(db: Db, sweepId: number): boolean {
  return !!db.prepare('SELECT 1 FROM sweeps WHERE id = ?').get(sweepId);
}

export function sweepStatusOf(db: Db, sweepId: number): SweepStatus {
  return (db.prepare('SELECT status FROM sweeps WHERE id = ?').get(sweepId) as { status: SweepStatus }).status;
}

/** Marks a sweep running again (a cluster job still has tasks): no error, not finished. */
export function reopenSweep(db: Db, sweepId: number): void {
  db.prepare("UPDATE sweeps SET status = 'running', error = NULL, finished_at = NULL WHERE id = ?").run(sweepId);
}

export function runCount(db: Db, sweepId: number): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM runs WHERE sweep_id = ?').get(sweepId) as { n: number }).n;
}

/** A sweep's runs, and how many of them are done or failed (d is null when it has none). */
export function runTally(db: Db, sweepId: number): { n: number; d: number | null } {
  return db.prepare("SELECT COUNT(*) AS n, SUM(status IN ('done', 'failed')) AS d FROM runs WHERE sweep_id = ?").get(sweepId) as { n: number; d: number | null };
}

/** The sweep a bundle file with this content was imported as, if any. */
export function sweepImportedFrom(db: Db, contentHash: string): { id: number } | undefined {
  return db.prepare("SELECT id FROM sweeps WHERE json_extract(environment, '$.imported_from.content_hash') = ?").get(contentHash) as { id: number } | undefined;
}

export interface RunningRunRow {
  run_id: number;
  sweep_id: number;
  workload: string;
  cap_w: number;
  repetition: number;
  /** The process of the run's sweep (null in older databases). */
  pid: number | null;
}

/** Runs 'running' in sweeps 'running', newest first: the live one is among them if its sweep's process is alive. */
export function runningRuns(db: Db): RunningRunRow[] {
  return db
    .prepare(
      `SELECT r.id AS run_id, r.sweep_id, r.workload, r.cap_w, r.repetition, s.pid FROM runs r JOIN sweeps s ON s.id = r.sweep_id
       WHERE s.status = 'running' AND r.status = 'running' ORDER BY r.id DESC`,
    )
    .all() as RunningRunRow[];
}

/** When the next run of a run's sweep started (its cool-down ended by then at the latest); null: none started after it. */
export function nextRunStart(db: Db, runId: number): number | null {
  const row = db
    .prepare('SELECT MIN(n.started_at) AS t FROM runs r JOIN runs n ON n.sweep_id = r.sweep_id AND n.started_at > r.started_at WHERE r.id = ?')
    .get(runId) as { t: number | null } | undefined;
  return row?.t ?? null;
}
