import type { Db } from './db';
import { readSamples, SampleWriter, streamFor, type ReadSamples, type StreamOwner } from './sample-blocks';
import type { Sample } from '../../../shared/sample';

/** A device's samples of one sweep in a time range (simulated sweeps' clocks can overlap another sweep's). */
export function sweepSamplesInRange(db: Db, sweepId: number, deviceRow: number, from: number, to: number): Omit<Sample, 'device_id'>[] {
  const stream = db.prepare('SELECT id FROM sample_streams WHERE sweep_id = ? AND device_id = ?').get(sweepId, deviceRow) as { id: number } | undefined;
  return stream ? readSamples(db, stream.id, from, to) : [];
}

/** The stream of a run's device: its sweep's samples of that device (null when none were recorded). */
export function runStream(db: Db, runId: number, deviceRow: number): { stream: number; from: number; to: number } | null {
  const run = db.prepare('SELECT sweep_id, started_at, ended_at FROM runs WHERE id = ?').get(runId) as
    | { sweep_id: number; started_at: number | null; ended_at: number | null }
    | undefined;
  if (!run || run.started_at === null) return null;
  const row = db.prepare('SELECT id FROM sample_streams WHERE sweep_id = ? AND device_id = ?').get(run.sweep_id, deviceRow) as { id: number } | undefined;
  if (!row) return null;
  // A run that never ended (the process was killed) keeps the samples up to the sweep's next run or its end.
  const next = db.prepare('SELECT MIN(started_at) AS t FROM runs WHERE sweep_id = ? AND started_at > ?').get(run.sweep_id, run.started_at) as { t: number | null };
  return { stream: row.id, from: run.started_at, to: run.ended_at ?? next.t ?? Infinity };
}

/** A run's samples of one device, from its start to its end (warm-up included). */
export function samplesOfRun(db: Db, runId: number, deviceRow: number): Omit<Sample, 'device_id'>[] {
  const s = runStream(db, runId, deviceRow);
  return s ? readSamples(db, s.stream, s.from, s.to) : [];
}

/** A device's samples of every sweep and dataset (or of one dataset) in a time range, t ascending. */
export function samplesInRange(db: Db, deviceRow: number, from: number, to: number, datasetId?: number, read: ReadSamples = readSamples): Omit<Sample, 'device_id'>[] {
  const streams = (
    datasetId === undefined
      ? db.prepare('SELECT id FROM sample_streams WHERE device_id = ? ORDER BY id').all(deviceRow)
      : db.prepare('SELECT id FROM sample_streams WHERE device_id = ? AND dataset_id = ? ORDER BY id').all(deviceRow, datasetId)
  ) as { id: number }[];
  return streams.flatMap((s) => read(db, s.id, from, to)).sort((a, b) => a.t - b.t);
}

/** The recordings (sweep or dataset) with samples of a device inside [from, to]. */
export function recordingsInRange(db: Db, deviceRow: number, from: number, to: number, datasetId?: number): { sweep_id: number | null; dataset_id: number | null }[] {
  return db
    .prepare(
      `SELECT DISTINCT s.sweep_id, s.dataset_id FROM sample_streams s JOIN sample_blocks b ON b.stream_id = s.id
       WHERE s.device_id = ? AND b.t1 >= ? AND b.t0 <= ? ${datasetId === undefined ? '' : 'AND s.dataset_id = ?'} ORDER BY s.id`,
    )
    .all(...(datasetId === undefined ? [deviceRow, from, to] : [deviceRow, from, to, datasetId])) as { sweep_id: number | null; dataset_id: number | null }[];
}

export function insertMetrics(db: Db, runId: number, rows: readonly { t: number; name: string; value: number }[]): void {
  if (rows.length === 0) return;
  const stmt = db.prepare('INSERT INTO metrics (run_id, t, name, value) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const r of rows) stmt.run(runId, r.t, r.name, r.value);
  })();
}

/** Every metric row of a run (all names), in the order written. */
export function allMetricsOfRun(db: Db, runId: number): { t: number; name: string; value: number }[] {
  return db.prepare('SELECT t, name, value FROM metrics WHERE run_id = ? ORDER BY id').all(runId) as { t: number; name: string; value: number }[];
}

export function deleteRunMetrics(db: Db, runId: number): void {
  db.prepare('DELETE FROM metrics WHERE run_id = ?').run(runId);
}

export function metricsOfRun(db: Db, runId: number, name: string): { t: number; value: number }[] {
  return db.prepare('SELECT t, value FROM metrics WHERE run_id = ? AND name = ? ORDER BY t').all(runId, name) as { t: number; value: number }[];
}

/** Writes one device's rows to its stream of a sweep or dataset (small writes; bulk imports use SampleWriter). */
export function writeSamples(db: Db, owner: StreamOwner, deviceRow: number, rows: readonly Omit<Sample, 'device_id'>[]): number {
  const writer = new SampleWriter(db);
  const n = writer.appendRows(streamFor(db, owner, deviceRow), rows);
  writer.close();
  return n;
}
