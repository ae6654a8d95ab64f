import type { Db } from './db';
import { SegmentFacts } from '../../../shared/source';

export interface NewDataset {
  name: string;
  /** Where it came from (a file path, a URL). */
  source: string;
  /** The importer that read it. */
  format: string;
  content_hash?: string | null;
  timezone?: string | null;
  meta?: Record<string, unknown>;
}

export interface DatasetRecord extends Required<Omit<NewDataset, 'meta'>> {
  id: number;
  imported_at: number;
  meta: Record<string, unknown>;
}

/** Registers an imported dataset; its samples go to streams owned by it (sample-blocks.ts streamFor). */
export function createDataset(db: Db, d: NewDataset): number {
  return Number(
    db
      .prepare('INSERT INTO datasets (name, source, format, content_hash, timezone, imported_at, meta) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(d.name, d.source, d.format, d.content_hash ?? null, d.timezone ?? null, Date.now() / 1000, JSON.stringify(d.meta ?? {})).lastInsertRowid,
  );
}

export function getDataset(db: Db, id: number): DatasetRecord | undefined {
  const r = db.prepare('SELECT * FROM datasets WHERE id = ?').get(id) as (Omit<DatasetRecord, 'meta'> & { meta: string }) | undefined;
  return r && { ...r, meta: JSON.parse(r.meta) as Record<string, unknown> };
}

export interface SegmentRecord extends SegmentFacts {
  id: number;
}

export function addSegment(db: Db, input: SegmentFacts | Partial<SegmentFacts> & Pick<SegmentFacts, 'dataset_id' | 'start' | 'end'>): number {
  const s = SegmentFacts.parse(input);
  return Number(
    db
      .prepare('INSERT INTO dataset_segments (dataset_id, start, end, device_keys, workload, cap_w, units, units_in_window, repetition, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(s.dataset_id, s.start, s.end, s.device_keys ? JSON.stringify(s.device_keys) : null, s.workload, s.cap_w, s.units, s.units_in_window, s.repetition, s.label).lastInsertRowid,
  );
}

type SegmentRow = Omit<SegmentRecord, 'device_keys'> & { device_keys: string | null };
const toSegment = (r: SegmentRow): SegmentRecord => ({ ...r, device_keys: r.device_keys ? (JSON.parse(r.device_keys) as string[]) : null });

export function getSegment(db: Db, id: number): SegmentRecord | undefined {
  const r = db.prepare('SELECT * FROM dataset_segments WHERE id = ?').get(id) as SegmentRow | undefined;
  return r && toSegment(r);
}

export function segmentsOf(db: Db, datasetId: number): SegmentRecord[] {
  return (db.prepare('SELECT * FROM dataset_segments WHERE dataset_id = ? ORDER BY start, id').all(datasetId) as SegmentRow[]).map(toSegment);
}

/** Metrics of a dataset (e.g. 'units' per step an importer read from a training log) in a time range. */
export function datasetMetrics(db: Db, datasetId: number, name: string, from: number, to: number): { t: number; value: number }[] {
  return db.prepare('SELECT t, value FROM metrics WHERE dataset_id = ? AND name = ? AND t >= ? AND t <= ? ORDER BY t').all(datasetId, name, from, to) as { t: number; value: number }[];
}

export function insertDatasetMetrics(db: Db, datasetId: number, rows: readonly { t: number; name: string; value: number }[]): void {
  const stmt = db.prepare('INSERT INTO metrics (dataset_id, t, name, value) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const r of rows) stmt.run(datasetId, r.t, r.name, r.value);
  })();
}

export function datasetExists(db: Db, id: number): boolean {
  return !!db.prepare('SELECT 1 FROM datasets WHERE id = ?').get(id);
}
