// Imported datasets: rows, files, devices and segments. Samples go through the samples store; a dataset is
// created and filled inside one transaction by the importer, so a killed import leaves nothing behind.
import type { Db } from './db';
import type { DatasetFile, DatasetRecord, ImportDevice, ImportReport, Segment, SegmentInput } from '../../../shared/dataset';

export interface NewDataset {
  name: string;
  format: string;
  timezone: string | null;
  source: string;
}

export function insertDataset(db: Db, d: NewDataset): number {
  return Number(
    db
      .prepare('INSERT INTO datasets (name, source, format, timezone, imported_at) VALUES (?, ?, ?, ?, ?)')
      .run(d.name, d.source, d.format, d.timezone, Date.now() / 1000).lastInsertRowid,
  );
}

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

/** A device of a dataset: its own devices row (key `dataset:<id>/<key>`), so imports never merge with live devices. */
export function insertDatasetDevice(db: Db, datasetId: number, format: string, d: ImportDevice, ordinal: number): number {
  const key = `dataset:${datasetId}/${d.key}`;
  const name = d.name ?? (d.kind === 'cpu' ? `CPU ${d.index ?? ordinal}` : d.kind === 'gpu' ? `GPU ${d.index ?? ordinal}` : d.key);
  return Number(
    db
      .prepare(
        `INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, uuid, pci_bus_id, sensors, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, '{}', ?)`,
      )
      .run(key, `dataset:${datasetId}`, format, d.index ?? ordinal, d.kind === 'cpu' ? 'cpu' : 'gpu', name, 'imported', d.uuid, d.pci_bus_id, Date.now() / 1000).lastInsertRowid,
  );
}

export interface DatasetDeviceRow {
  id: number;
  key: string;
  kind: string;
  name: string;
  index: number;
}

export function devicesOfDataset(db: Db, datasetId: number): DatasetDeviceRow[] {
  return (db.prepare("SELECT id, device_key AS key, kind, name, idx AS 'index' FROM devices WHERE host = ? ORDER BY idx, id").all(`dataset:${datasetId}`) as DatasetDeviceRow[]).map(
    (d) => ({ ...d, key: d.key.replace(/^dataset:\d+\//, '') }),
  );
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

const segmentRow = (r: Record<string, unknown>): Segment => r as unknown as Segment;

export function segmentsOf(db: Db, datasetId: number): Segment[] {
  return (db.prepare('SELECT id, dataset_id, name, origin, t_start, t_end, workload, cap_w, units, units_count FROM segments WHERE dataset_id = ? ORDER BY t_start, id').all(datasetId) as Record<string, unknown>[]).map(segmentRow);
}

export function insertSegment(db: Db, datasetId: number, s: SegmentInput): number {
  return Number(
    db
      .prepare('INSERT INTO segments (dataset_id, name, origin, t_start, t_end, workload, cap_w, units, units_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(datasetId, s.name, s.origin, s.t_start, s.t_end, s.workload ?? null, s.cap_w ?? null, s.units ?? null, s.units_count ?? null, Date.now() / 1000).lastInsertRowid,
  );
}

export function updateSegment(db: Db, id: number, s: Partial<SegmentInput>): boolean {
  const cols = (['name', 'origin', 't_start', 't_end', 'workload', 'cap_w', 'units', 'units_count'] as const).filter((c) => s[c] !== undefined);
  if (cols.length === 0) return false;
  return db.prepare(`UPDATE segments SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...cols.map((c) => s[c] ?? null), id).changes > 0;
}

export function deleteSegments(db: Db, datasetId: number, origin: Segment['origin'] | null, id?: number): number {
  if (id !== undefined) return db.prepare('DELETE FROM segments WHERE dataset_id = ? AND id = ?').run(datasetId, id).changes;
  if (origin) return db.prepare('DELETE FROM segments WHERE dataset_id = ? AND origin = ?').run(datasetId, origin).changes;
  return db.prepare('DELETE FROM segments WHERE dataset_id = ?').run(datasetId).changes;
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
  return {
    id: r.id,
    name: r.name,
    format: r.format,
    timezone: r.timezone,
    content_hash: r.content_hash,
    imported_at: r.imported_at,
    samples: r.samples,
    t_start: r.t_start,
    t_end: r.t_end,
    files,
    devices: devicesOfDataset(db, r.id),
    segments: segmentsOf(db, r.id),
    report,
  };
}

const datasetColumns = 'id, name, format, timezone, content_hash, imported_at, samples, t_start, t_end, report';

export function getDataset(db: Db, id: number): DatasetRecord | undefined {
  const r = db.prepare(`SELECT ${datasetColumns} FROM datasets WHERE id = ?`).get(id) as DatasetRow | undefined;
  return r ? record(db, r, true) : undefined;
}

export function listDatasets(db: Db): DatasetRecord[] {
  return (db.prepare(`SELECT ${datasetColumns} FROM datasets ORDER BY id DESC`).all() as DatasetRow[]).map((r) => record(db, r, false));
}

export function deleteDataset(db: Db, id: number): boolean {
  return db.transaction(() => {
    db.prepare('DELETE FROM samples WHERE dataset_id = ?').run(id);
    const n = db.prepare('DELETE FROM datasets WHERE id = ?').run(id).changes;
    db.prepare('DELETE FROM devices WHERE host = ?').run(`dataset:${id}`);
    return n > 0;
  })();
}
