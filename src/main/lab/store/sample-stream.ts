// Streaming reads of stored samples for exports: block by block (flat memory for any number of samples), each
// block decoded to columns. The selection becomes stream ranges: a run is its sweep's streams over the run's span.
import type { Db } from './db';
import { decodeChunk, readingsOf, type SampleChunk } from './sample-chunk';
import { runStream } from './samples';
import { sampleFields, sensorKindAt, summaryFields, type ReadingField, type SampleColumns, type SampleField } from '../../../shared/sample';

export type { SampleChunk };

/** Which samples: a run, a sweep, a dataset, a device index, a time range; all optional. */
export interface SampleSelection {
  runId?: number;
  sweepId?: number;
  datasetId?: number;
  deviceIndex?: number;
  from?: number;
  to?: number;
}

export interface StreamRange {
  stream: number;
  device: string;
  from: number;
  to: number;
}

/** The streams (and their time ranges) a selection covers, device by device. */
export function streamRanges(db: Db, sel: SampleSelection): StreamRange[] {
  const from = sel.from ?? -Infinity;
  const to = sel.to ?? Infinity;
  const rows = db
    .prepare(
      `SELECT s.id AS stream, s.device_id, d.device_key AS device, d.idx FROM sample_streams s JOIN devices d ON d.id = s.device_id
       WHERE (@sweep IS NULL OR s.sweep_id = @sweep) AND (@dataset IS NULL OR s.dataset_id = @dataset) AND (@idx IS NULL OR d.idx = @idx)
       ORDER BY d.idx, s.id`,
    )
    .all({ sweep: sel.runId !== undefined ? ((db.prepare('SELECT sweep_id FROM runs WHERE id = ?').get(sel.runId) as { sweep_id: number } | undefined)?.sweep_id ?? -1) : (sel.sweepId ?? null), dataset: sel.datasetId ?? null, idx: sel.deviceIndex ?? null }) as {
    stream: number;
    device_id: number;
    device: string;
  }[];
  const out: StreamRange[] = [];
  for (const r of rows) {
    let lo = from;
    let hi = to;
    if (sel.runId !== undefined) {
      const span = runStream(db, sel.runId, r.device_id);
      if (!span) continue;
      lo = Math.max(lo, span.from);
      hi = Math.min(hi, span.to);
    }
    if (lo <= hi) out.push({ stream: r.stream, device: r.device, from: lo, to: hi });
  }
  return out;
}

/** One stored block of a selection: its bytes, its device key and the time range [from, to] wanted of it. */
export interface SelectedBlock {
  device: string;
  data: Uint8Array;
  n: number;
  from: number;
  to: number;
}

/** The selected blocks, undecoded (t ascending within a stream): exporters decode them where they format them. */
export function* iterateSampleBlocks(db: Db, sel: SampleSelection): IterableIterator<SelectedBlock> {
  const blocks = db.prepare('SELECT data, n FROM sample_blocks WHERE stream_id = ? AND t1 >= ? AND t0 <= ? ORDER BY t0');
  for (const r of streamRanges(db, sel)) {
    for (const row of blocks.iterate(r.stream, r.from, r.to) as IterableIterator<{ data: Uint8Array; n: number }>) yield { device: r.device, data: row.data, n: row.n, from: r.from, to: r.to };
  }
}

/**
 * The selected samples, block by block (t ascending within a stream), decoding only the fields asked for.
 * `quantised`: values as the stored integers round(value * scale) (see decodeBlock).
 */
export function* iterateSampleChunks(db: Db, sel: SampleSelection, fields: readonly SampleField[], quantised = false): IterableIterator<SampleChunk> {
  const readings = readingsOf(fields);
  for (const b of iterateSampleBlocks(db, sel)) {
    const c = decodeChunk(b, readings, quantised);
    if (c) yield c;
  }
}

/** A chunk's value of `field` at row i (null: no reading), as stored. */
export function valueAt(c: SampleColumns, field: SampleField, i: number): number | string | null {
  if (field === 't') return c.t[i]!;
  if (field === 'power_kind') return typeof c.power_kind === 'string' ? c.power_kind : c.power_kind ? sensorKindAt(c.power_kind[i]!) : 'instant';
  const col = c.cols[field];
  const v = col ? col[i]! : NaN;
  return v === v ? v : null;
}

/** About how many samples a selection holds (whole blocks counted), for progress. */
export function countSamples(db: Db, sel: SampleSelection): number {
  const q = db.prepare('SELECT COALESCE(SUM(n), 0) AS n FROM sample_blocks WHERE stream_id = ? AND t1 >= ? AND t0 <= ?');
  return streamRanges(db, sel).reduce((k, r) => k + (q.get(r.stream, r.from, r.to) as { n: number }).n, 0);
}

/**
 * The fields with a reading in every selected sample, known from the block summaries alone (a summarised field's
 * count of readings equals the block's samples); only summarised fields can be shown so, others are left out.
 */
export function alwaysPresent(db: Db, sel: SampleSelection, fields: readonly SampleField[]): Set<ReadingField> {
  const ranges = streamRanges(db, sel);
  const out = new Set<ReadingField>();
  for (const f of summaryFields.filter((s) => fields.includes(s))) {
    const q = db.prepare(`SELECT COUNT(*) AS short FROM sample_blocks WHERE stream_id = ? AND t1 >= ? AND t0 <= ? AND ${f}_n < n`);
    if (ranges.every((r) => (q.get(r.stream, r.from, r.to) as { short: number }).short === 0)) out.add(f);
  }
  return out;
}

export const ALL_SAMPLE_COLUMNS: readonly SampleField[] = sampleFields;
