// Streaming reads of stored samples for exports: one row at a time through SQLite's cursor (flat memory for any
// number of rows), in recorded order. The only place exports touch the samples table.
import type { Db } from './db';
import { SAMPLE_EXPORT_COLUMNS, type SampleExportColumn } from '../../../shared/export';

/** Which samples: a run, a sweep, a dataset (optionally one segment), a device index, a time range; all optional. */
export interface SampleSelection {
  runId?: number;
  sweepId?: number;
  datasetId?: number;
  deviceIndex?: number;
  from?: number;
  to?: number;
}

/** A row as exported: the sample columns asked for, then the device (its key) and the run id. */
export type SampleRowValues = (number | string | null)[];

export function sampleQuery(sel: SampleSelection, columns: readonly SampleExportColumn[]): { sql: string; params: (number | string)[] } {
  const where: string[] = [];
  const params: number[] = [];
  const add = (cond: string, v: number | undefined) => {
    if (v === undefined) return;
    where.push(cond);
    params.push(v);
  };
  add('s.run_id = ?', sel.runId);
  add('s.sweep_id = ?', sel.sweepId);
  add('s.dataset_id = ?', sel.datasetId);
  add('s.device_id IN (SELECT id FROM devices WHERE idx = ?)', sel.deviceIndex);
  add('s.t >= ?', sel.from);
  add('s.t <= ?', sel.to);
  const cols = columns.map((c) => `s.${c}`).join(', ');
  return {
    sql: `SELECT ${cols}, s.device_id, s.run_id FROM samples s ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.id`,
    params,
  };
}

/**
 * Streams the selected samples as arrays (columns in the order asked, then device key, run id). The device key is
 * looked up once per device here rather than joined per row in SQL: it is the same few strings for millions of rows.
 */
export function* iterateSamples(db: Db, sel: SampleSelection, columns: readonly SampleExportColumn[], mapKey: (key: string) => string = (k) => k): IterableIterator<SampleRowValues> {
  const keys = new Map((db.prepare('SELECT id, device_key FROM devices').all() as { id: number; device_key: string }[]).map((d) => [d.id, mapKey(d.device_key)]));
  const q = sampleQuery(sel, columns);
  const dev = columns.length;
  for (const r of db.prepare(q.sql).raw(true).iterate(...q.params) as IterableIterator<SampleRowValues>) {
    r[dev] = keys.get(r[dev] as number)!;
    yield r;
  }
}

export function countSamples(db: Db, sel: SampleSelection): number {
  const q = sampleQuery(sel, ['t']);
  return (db.prepare(`SELECT COUNT(*) AS n FROM (${q.sql})`).get(...q.params) as { n: number }).n;
}

export const ALL_SAMPLE_COLUMNS: readonly SampleExportColumn[] = SAMPLE_EXPORT_COLUMNS.map((c) => c.name);
