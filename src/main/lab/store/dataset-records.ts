// What an import records beside the dataset row (datasets.ts): its files with content hashes (dedupe), the import
// report, its own device rows, and segments with their origin; and the dataset as `caplab datasets` prints it.
import type { Db } from './db';
import { segmentsOf } from './datasets';
import type { DatasetFile, DatasetRecord, ImportDevice, ImportReport, Segment, SegmentInput } from '../../../shared/dataset';

export function finishDataset(db: Db, id: number, r: { report: ImportReport; samples: number; content_hash: string }): void {
  db.prepare('UPDATE datasets SET report = ?, samples = ?, t_start = ?, t_end = ?, content_hash = ?, format = ? WHERE id = ?').run(
    JSON.stringify(r.report),
    r.samples,
    r.report.t_start,
    r.report.t_end,
    r.content_hash,
    r.report.format,
    id,
  );
}

export function insertDatasetFile(db: Db, datasetId: number, f: DatasetFile): void {
  db.prepare('INSERT INTO dataset_files (dataset_id, path, format, bytes, content_hash) VALUES (?, ?, ?, ?, ?)').run(datasetId, f.path, f.format, f.bytes, f.content_hash);
}

/** The dataset that already holds a file with this content, if any. */
export function datasetWithFile(db: Db, contentHash: string): { id: number; name: string; path: string } | undefined {
  return db
    .prepare('SELECT d.id, d.name, f.path FROM dataset_files f JOIN datasets d ON d.id = f.dataset_id WHERE f.content_hash = ? LIMIT 1')
    .get(contentHash) as { id: number; name: string; path: string } | undefined;
}

/**
 * A device of a dataset: its own devices row (host `dataset:<id>`), so imports never merge with live devices. Its
 * kind is the import's (gpu, cpu, node, facility): a node-level series is not a GPU.
 */
export function insertDatasetDevice(db: Db, datasetId: number, format: string, d: ImportDevice, ordinal: number): number {
  const host = `dataset:${datasetId}`;
  const name = d.name ?? (d.kind === 'cpu' ? `CPU ${d.index ?? ordinal}` : d.kind === 'gpu' ? `GPU ${d.index ?? ordinal}` : d.key);
  const index = d.index ?? ordinal;
  return Number(
    db
      .prepare(
        `INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, uuid, pci_bus_id, sensors, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'imported', 0, ?, ?, '{}', ?)`,
      )
      .run(`${host}/${format}:${index}/${d.key}`, host, format, index, d.kind, name, d.uuid, d.pci_bus_id, Date.now() / 1000).lastInsertRowid,
  );
}

export interface DatasetDeviceRow {
  /** devices.id (stays in main/lab). */
  row: number;
  key: string;
  kind: string;
  name: string;
  index: number;
  /** The import format its samples came from (devices.backend). */
  format: string;
}

export function devicesOfDataset(db: Db, datasetId: number): DatasetDeviceRow[] {
  return db.prepare("SELECT id AS row, device_key AS key, kind, name, idx AS 'index', backend AS format FROM devices WHERE host = ? ORDER BY idx, id").all(`dataset:${datasetId}`) as DatasetDeviceRow[];
}

/** Each device row of a dataset with its kind (gpu, cpu, node, facility), in no set order. */
export function datasetDeviceKinds(db: Db, datasetId: number): { id: number; kind: string }[] {
  return db.prepare('SELECT id, kind FROM devices WHERE host = ?').all(`dataset:${datasetId}`) as { id: number; kind: string }[];
}

/** The content hashes of a dataset's files, in the order they were imported. */
export function datasetFileHashes(db: Db, datasetId: number): string[] {
  return (db.prepare('SELECT content_hash FROM dataset_files WHERE dataset_id = ? ORDER BY id').all(datasetId) as { content_hash: string }[]).map((r) => r.content_hash);
}

/** The time range of a dataset's samples (null ends before the import has finished it); undefined: no such dataset. */
export function datasetSpan(db: Db, datasetId: number): { t_start: number | null; t_end: number | null } | undefined {
  return db.prepare('SELECT t_start, t_end FROM datasets WHERE id = ?').get(datasetId) as { t_start: number | null; t_end: number | null } | undefined;
}

export function insertSegment(db: Db, datasetId: number, s: SegmentInput): number {
  return Number(
    db
      .prepare(
        'INSERT INTO dataset_segments (dataset_id, start, end, device_keys, workload, cap_w, units, units_in_window, repetition, label, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(datasetId, s.start, s.end, s.device_keys ? JSON.stringify(s.device_keys) : null, s.workload ?? null, s.cap_w ?? null, s.units ?? null, s.units_in_window ?? null, s.repetition ?? 1, s.label ?? null, s.origin).lastInsertRowid,
  );
}

export function updateSegment(db: Db, datasetId: number, id: number, s: Partial<SegmentInput>): boolean {
  const cols = (['start', 'end', 'workload', 'cap_w', 'units', 'units_in_window', 'repetition', 'label', 'origin'] as const).filter((c) => s[c] !== undefined);
  if (cols.length === 0) return false;
  return db.prepare(`UPDATE dataset_segments SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ? AND dataset_id = ?`).run(...cols.map((c) => s[c] ?? null), id, datasetId).changes > 0;
}

export function deleteSegment(db: Db, datasetId: number, id: number): boolean {
  return db.prepare('DELETE FROM dataset_segments WHERE dataset_id = ? AND id = ?').run(datasetId, id).changes > 0;
}

/** Segments of a dataset with their origin. */
export function datasetSegments(db: Db, datasetId: number): Segment[] {
  const origins = new Map((db.prepare('SELECT id, origin FROM dataset_segments WHERE dataset_id = ?').all(datasetId) as { id: number; origin: Segment['origin'] }[]).map((r) => [r.id, r.origin]));
  return segmentsOf(db, datasetId).map((s) => ({ ...s, origin: origins.get(s.id) ?? 'structure' }));
}

interface DatasetRow {
  id: number;
  name: string;
  format: string;
  timezone: string | null;
  content_hash: string | null;
  imported_at: number;
  samples: number;
  t_start: number | null;
  t_end: number | null;
  report: string;
}

function record(db: Db, r: DatasetRow, full: boolean): DatasetRecord {
  const files = db.prepare('SELECT path, format, bytes, content_hash FROM dataset_files WHERE dataset_id = ? ORDER BY id').all(r.id) as DatasetFile[];
  let report: ImportReport | null = null;
  if (full) {
    try {
      const parsed = JSON.parse(r.report) as ImportReport;
      report = parsed && parsed.format ? parsed : null;
    } catch {
      report = null;
    }
  }
  const { report: _raw, ...rest } = r;
  return { ...rest, files, devices: devicesOfDataset(db, r.id).map(({ row, format: _format, ...d }) => ({ id: row, ...d })), segments: datasetSegments(db, r.id), report };
}

const datasetColumns = 'id, name, format, timezone, content_hash, imported_at, samples, t_start, t_end, report';

export function datasetRecord(db: Db, id: number): DatasetRecord | undefined {
  const r = db.prepare(`SELECT ${datasetColumns} FROM datasets WHERE id = ?`).get(id) as DatasetRow | undefined;
  return r ? record(db, r, true) : undefined;
}

export function datasetRecords(db: Db): DatasetRecord[] {
  return (db.prepare(`SELECT ${datasetColumns} FROM datasets ORDER BY id DESC`).all() as DatasetRow[]).map((r) => record(db, r, false));
}

/** Deletes a dataset with its streams, blocks, segments and files, and its device rows. */
export function removeDataset(db: Db, id: number): boolean {
  return db.transaction(() => {
    const n = db.prepare('DELETE FROM datasets WHERE id = ?').run(id).changes;
    db.prepare('DELETE FROM devices WHERE host = ?').run(`dataset:${id}`);
    return n > 0;
  })();
}
