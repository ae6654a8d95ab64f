// Samples are stored in blocks: one row per ~1,000 samples of one stream (one device's readings within one sweep or
// one imported dataset), the samples packed by block-codec, with min/max/sum summaries of the plotted fields so that
// decimating millions of samples reads the summaries only. See docs/architecture.md, "Storage".
import type { Statement } from 'better-sqlite3';
import type { Db } from './connection';
import { decodeBlock, encodeBlock, type EncodedBlock } from './block-codec';
import { columnsOf, readingFields, sensorKindAt, sensorKindIndex, summaryFields, type ReadingField, type Sample, type SampleColumns, type SensorKind } from '../../../shared/sample';
import { decimateMinMax, type XY } from '../../../core/decimate';

export const BLOCK_SAMPLES = 1024;
const COUNTER = sensorKindIndex('counter');
const rowTemplate = Object.fromEntries([['t', 0], ['power_kind', 'instant'], ...readingFields.map((f) => [f, null])]) as Omit<Sample, 'device_id'>;

const summaryColumns = summaryFields.flatMap((f) => [`${f}_min`, `${f}_max`, `${f}_sum`, `${f}_n`]);

/** The SQL of the block table, derived from the sample spec (one summary quadruple per summarised field). */
export function sampleBlocksDdl(): string {
  const summaries = summaryFields.map((f) => `${f}_min REAL, ${f}_max REAL, ${f}_sum REAL, ${f}_n INTEGER`).join(',\n    ');
  return `
  CREATE TABLE sample_streams (
    id INTEGER PRIMARY KEY,
    device_id INTEGER NOT NULL REFERENCES devices(id),
    sweep_id INTEGER REFERENCES sweeps(id) ON DELETE CASCADE,
    dataset_id INTEGER REFERENCES datasets(id) ON DELETE CASCADE
  );
  CREATE INDEX sample_streams_owner ON sample_streams(sweep_id, dataset_id, device_id);
  CREATE TABLE sample_blocks (
    id INTEGER PRIMARY KEY,
    stream_id INTEGER NOT NULL REFERENCES sample_streams(id) ON DELETE CASCADE,
    t0 REAL NOT NULL,
    t1 REAL NOT NULL,
    n INTEGER NOT NULL,
    ${summaries},
    -- Last: a row's columns after a large BLOB sit on its overflow pages, so summaries before it read fast.
    data BLOB NOT NULL
  );
  -- Covering: decimation reads the summaries from the index alone, never the rows with their BLOBs.
  CREATE INDEX sample_blocks_stream_t ON sample_blocks(stream_id, t1, t0, n, ${summaryColumns.join(', ')});`;
}

/** Who recorded a stream: a sweep, or an imported dataset. */
export type StreamOwner = { sweep_id: number; dataset_id?: null } | { dataset_id: number; sweep_id?: null };

/** The stream of one device's samples within a sweep or dataset (created on first use). */
export function streamFor(db: Db, owner: StreamOwner, deviceRow: number): number {
  const sweep = owner.sweep_id ?? null;
  const dataset = owner.dataset_id ?? null;
  const row = db.prepare('SELECT id FROM sample_streams WHERE sweep_id IS ? AND dataset_id IS ? AND device_id = ?').get(sweep, dataset, deviceRow) as { id: number } | undefined;
  if (row) return row.id;
  return Number(db.prepare('INSERT INTO sample_streams (device_id, sweep_id, dataset_id) VALUES (?, ?, ?)').run(deviceRow, sweep, dataset).lastInsertRowid);
}

export interface StreamInfo {
  stream_id: number;
  device_row: number;
  sweep_id: number | null;
  dataset_id: number | null;
}

/** Every stream of a sweep or dataset. */
export function streamsOf(db: Db, owner: StreamOwner): StreamInfo[] {
  const where = owner.sweep_id != null ? 'sweep_id = ?' : 'dataset_id = ?';
  return db
    .prepare(`SELECT id AS stream_id, device_id AS device_row, sweep_id, dataset_id FROM sample_streams WHERE ${where} ORDER BY id`)
    .all(owner.sweep_id ?? owner.dataset_id) as StreamInfo[];
}


/** One open (partly filled) block per stream, rewritten in place on each flush until it is full. */
interface OpenBlock {
  rowId: number | null;
  pending: SampleColumns;
  capacity: number;
}

function emptyColumns(capacity: number): SampleColumns {
  return { n: 0, t: new Float64Array(capacity), cols: {}, power_kind: new Uint8Array(capacity) };
}

function kindIndexAt(c: SampleColumns, i: number): number {
  const k = c.power_kind ?? 'instant';
  return typeof k === 'string' ? ['instant', 'average', 'counter'].indexOf(k) : k[i]!;
}

/** Orders a pending block by t (live readings from two samplers can arrive slightly out of order). */
function sortedCopy(c: SampleColumns): SampleColumns {
  let sorted = true;
  for (let i = 1; i < c.n && sorted; i++) sorted = c.t[i]! >= c.t[i - 1]!;
  if (sorted) return c;
  const order = Array.from({ length: c.n }, (_, i) => i).sort((a, b) => c.t[a]! - c.t[b]! || a - b);
  const out = emptyColumns(c.n);
  out.n = c.n;
  const kinds = out.power_kind as Uint8Array;
  order.forEach((src, i) => {
    out.t[i] = c.t[src]!;
    kinds[i] = kindIndexAt(c, src);
  });
  for (const f of readingFields) {
    const col = c.cols[f];
    if (!col) continue;
    const o = new Float64Array(c.n);
    order.forEach((src, i) => (o[i] = col[src]!));
    out.cols[f] = o;
  }
  return out;
}

/**
 * Writes samples to streams. `append` takes columnar batches (bulk imports: full blocks are encoded straight from
 * the batch and committed in one transaction per call); `flush` also writes each stream's partly filled block, so
 * a live recorder that flushes every few hundred ms loses at most that much to a kill (WAL, synchronous=NORMAL).
 */
export class SampleWriter {
  private open = new Map<number, OpenBlock>();
  private readonly insert;
  private readonly update;

  constructor(
    private readonly db: Db,
    private readonly blockSamples = BLOCK_SAMPLES,
  ) {
    const cols = ['stream_id', 't0', 't1', 'n', 'data', ...summaryColumns];
    this.insert = db.prepare(`INSERT INTO sample_blocks (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    this.update = db.prepare(`UPDATE sample_blocks SET ${cols.slice(1).map((c) => `${c} = ?`).join(', ')} WHERE id = ?`);
  }

  private values(stream: number, b: EncodedBlock): (number | Uint8Array | null)[] {
    const out: (number | Uint8Array | null)[] = [stream, b.t0, b.t1, b.n, b.data];
    for (const f of summaryFields) {
      const s = b.summaries[f];
      out.push(s ? s.min : null, s ? s.max : null, s ? s.sum : null, s ? s.count : 0);
    }
    return out;
  }

  private put(stream: number, b: EncodedBlock, rowId: number | null): number {
    const v = this.values(stream, b);
    if (rowId === null) return Number(this.insert.run(...v).lastInsertRowid);
    this.update.run(...v.slice(1), rowId);
    return rowId;
  }

  /** Appends a batch of one stream's samples (t ascending within the batch). Returns the number of samples taken. */
  append(stream: number, c: SampleColumns): number {
    if (c.n === 0) return 0;
    this.db.transaction(() => {
      let i = 0;
      let ob = this.open.get(stream);
      // Top up the open block first.
      if (ob && ob.pending.n > 0) {
        const take = Math.min(c.n, ob.capacity - ob.pending.n);
        this.copyInto(ob.pending, c, 0, take);
        i = take;
        if (ob.pending.n === ob.capacity) {
          this.put(stream, encodeBlock(sortedCopy(ob.pending)), ob.rowId);
          this.open.delete(stream);
          ob = undefined;
        }
      }
      // Whole blocks straight from the batch.
      for (; c.n - i >= this.blockSamples; i += this.blockSamples) this.put(stream, encodeBlock(c, i, i + this.blockSamples), null);
      if (i < c.n) {
        ob ??= { rowId: null, pending: emptyColumns(this.blockSamples), capacity: this.blockSamples };
        this.open.set(stream, ob);
        this.copyInto(ob.pending, c, i, c.n);
      }
    })();
    return c.n;
  }

  /** Appends row samples of one stream (live readings). */
  appendRows(stream: number, rows: readonly Omit<Sample, 'device_id'>[]): number {
    return rows.length ? this.append(stream, sortedCopy(columnsOf(rows))) : 0;
  }

  private copyInto(dst: SampleColumns, src: SampleColumns, from: number, to: number): void {
    const at = dst.n;
    const n = to - from;
    dst.t.set(src.t.subarray(from, to), at);
    const kinds = dst.power_kind as Uint8Array;
    for (let i = 0; i < n; i++) kinds[at + i] = kindIndexAt(src, from + i);
    for (const f of readingFields) {
      const s = src.cols[f];
      let d = dst.cols[f];
      if (!s && !d) continue;
      if (!d) {
        d = new Float64Array(dst.t.length).fill(NaN);
        dst.cols[f] = d;
      }
      if (s) d.set(s.subarray(from, to), at);
      else d.fill(NaN, at, at + n);
    }
    dst.n += n;
  }

  /** Writes every stream's partly filled block (in place of its previous version). */
  flush(): void {
    if (this.open.size === 0) return;
    this.db.transaction(() => {
      for (const [stream, ob] of this.open) {
        if (ob.pending.n === 0) continue;
        ob.rowId = this.put(stream, encodeBlock(sortedCopy(ob.pending)), ob.rowId);
      }
    })();
  }

  /** Flushes and forgets the open blocks (the next append to a stream starts a new block). */
  close(): void {
    this.flush();
    this.open.clear();
  }
}

interface BlockRow {
  t0: number;
  t1: number;
  n: number;
  data: Uint8Array;
}

/** One prepared statement per connection: analyses read a stream in many windows. */
const blocksInStatement = new WeakMap<Db, Statement<[number, number, number], BlockRow>>();

function blocksIn(db: Db, stream: number, from: number, to: number): BlockRow[] {
  let st = blocksInStatement.get(db);
  if (!st) {
    st = db.prepare<[number, number, number], BlockRow>('SELECT t0, t1, n, data FROM sample_blocks WHERE stream_id = ? AND t1 >= ? AND t0 <= ? ORDER BY t0');
    blocksInStatement.set(db, st);
  }
  return st.all(stream, from, to);
}

/** First index with t >= x in a sorted column. */
function lowerBound(t: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A stream's samples in [from, to] as columns, t ascending; `fields` limits the decoded reading columns. */
/** The decoded blocks of a window, each with the range [a, b) of its samples that fall in [from, to]. */
function windowParts(db: Db, stream: number, from: number, to: number, fields?: readonly ReadingField[]): { c: SampleColumns; a: number; b: number }[] {
  return blocksIn(db, stream, from, to).map((b) => {
    const c = decodeBlock(b.data, fields);
    return { c, a: lowerBound(c.t, c.n, from), b: lowerBound(c.t, c.n, to + Number.EPSILON * Math.abs(to)) };
  });
}

export function readWindow(db: Db, stream: number, from: number, to: number, fields?: readonly ReadingField[]): SampleColumns {
  const parts = windowParts(db, stream, from, to, fields);
  const total = parts.reduce((k, p) => k + (p.b - p.a), 0);
  const names = (fields ?? readingFields).filter((f) => parts.some((p) => p.c.cols[f]));
  const kinds = new Set(parts.map((p) => p.c.power_kind));
  const out: SampleColumns = { n: total, t: new Float64Array(total), cols: {} };
  // One kind for the whole window (the usual case) stays one value; mixed kinds become a per-sample column.
  const constKind = kinds.size === 1 && typeof [...kinds][0] === 'string' ? ([...kinds][0] as SensorKind) : null;
  out.power_kind = constKind ?? new Uint8Array(total);
  for (const f of names) out.cols[f] = new Float64Array(total);
  let k = 0;
  for (const { c, a, b } of parts) {
    out.t.set(c.t.subarray(a, b), k);
    if (!constKind) for (let i = a; i < b; i++) (out.power_kind as Uint8Array)[k + i - a] = kindIndexAt(c, i);
    for (const f of names) {
      const col = c.cols[f];
      if (col) out.cols[f]!.set(col.subarray(a, b), k);
      else out.cols[f]!.fill(NaN, k, k + b - a);
    }
    k += b - a;
  }
  // Blocks of one stream overlap only when readings arrived out of order across flushes.
  return sortedCopy(out);
}

/**
 * Calls fn(t, value) for each of a stream's samples in [from, to] that holds `field`, in the order readWindow gives
 * them, without building the window's columns (the import's phase detection reads every sample of a dataset).
 */
export function forEachInWindow(db: Db, stream: number, from: number, to: number, field: ReadingField, fn: (t: number, v: number) => void): void {
  const parts = windowParts(db, stream, from, to, [field]);
  // Blocks that overlap (readings out of order across flushes) are merged and sorted by readWindow.
  let last = -Infinity;
  for (const { c, a, b } of parts)
    for (let i = a; i < b; i++) {
      const t = c.t[i]!;
      if (!(t >= last)) {
        const w = readWindow(db, stream, from, to, [field]);
        const col = w.cols[field];
        if (col) for (let k = 0; k < w.n; k++) if (col[k] === col[k]) fn(w.t[k]!, col[k]!);
        return;
      }
      last = t;
    }
  for (const { c, a, b } of parts) {
    const col = c.cols[field];
    if (col) for (let i = a; i < b; i++) if (col[i] === col[i]) fn(c.t[i]!, col[i]!);
  }
}

/** A stream's samples in [from, to] as rows of the sample model (analysis series). */
export function readSamples(db: Db, stream: number, from: number, to: number): Omit<Sample, 'device_id'>[] {
  const c = readWindow(db, stream, from, to);
  const present = readingFields.filter((f) => c.cols[f]);
  const rows: Omit<Sample, 'device_id'>[] = new Array(c.n);
  for (let i = 0; i < c.n; i++) {
    // Every row starts from one template, so all rows share one shape (fast to build and to read).
    const r = { ...rowTemplate, t: c.t[i]!, power_kind: typeof c.power_kind === 'string' ? c.power_kind : sensorKindAt(c.power_kind![i]!) };
    for (const f of present) {
      const v = c.cols[f]![i]!;
      r[f] = v === v ? v : null;
    }
    rows[i] = r;
  }
  return rows;
}

/** How a reader of samples reads a stream: readSamples, or a memo over it that two passes share (analyzeDataset). */
export type ReadSamples = typeof readSamples;

/** Number of samples and time span of a stream. */
export function streamExtent(db: Db, stream: number): { n: number; t0: number | null; t1: number | null } {
  return db.prepare('SELECT COALESCE(SUM(n), 0) AS n, MIN(t0) AS t0, MAX(t1) AS t1 FROM sample_blocks WHERE stream_id = ?').get(stream) as {
    n: number;
    t0: number | null;
    t1: number | null;
  };
}

/**
 * Min/max decimation of one field of a stream over [from, to] to at most maxPoints points. When the range holds at
 * least one block per two buckets, the block summaries are used (each block counts at its mid time, so the result's
 * resolution is one block, ~100 s of 100 ms samples); otherwise the samples are decoded and decimated exactly. Counter-only readings (no power) are
 * not plot points.
 */
export function decimateField(db: Db, stream: number, field: ReadingField, from: number, to: number, maxPoints: number): XY {
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  if (summaryFields.includes(field)) {
    const rows = db
      .prepare(`SELECT t0, t1, ${field}_min AS lo, ${field}_max AS hi, ${field}_n AS c FROM sample_blocks WHERE stream_id = ? AND t1 >= ? AND t0 <= ? ORDER BY t0`)
      .all(stream, from, to) as { t0: number; t1: number; lo: number | null; hi: number | null; c: number }[];
    if (rows.length * 2 >= buckets) return fromSummaries(rows, from, to, buckets);
  }
  const c = readWindow(db, stream, from, to, [field]);
  const v = c.cols[field] ?? new Float64Array(c.n).fill(NaN);
  if (field !== 'power_w' || (typeof c.power_kind === 'string' && c.power_kind !== 'counter')) return decimateMinMax(c.t, v, maxPoints);
  const keep: number[] = [];
  for (let i = 0; i < c.n; i++) if (v[i] === v[i] || kindIndexAt(c, i) !== COUNTER) keep.push(i);
  return decimateMinMax(
    keep.map((i) => c.t[i]!),
    keep.map((i) => v[i]!),
    maxPoints,
  );
}

function fromSummaries(rows: { t0: number; t1: number; lo: number | null; hi: number | null; c: number }[], from: number, to: number, buckets: number): XY {
  const a = Math.max(from, rows[0]!.t0);
  const span = Math.min(to, rows[rows.length - 1]!.t1) - a;
  const out: XY = { t: [], v: [] };
  let cur = -1;
  let lo = Infinity;
  let hi = -Infinity;
  let tLo = 0;
  let tHi = 0;
  let any = false;
  let tFirst = 0;
  const emit = () => {
    if (cur < 0) return;
    if (!any) {
      out.t.push(tFirst);
      out.v.push(null);
    } else if (lo === hi) {
      out.t.push(tLo);
      out.v.push(lo);
    } else {
      const [p, q] = tLo <= tHi ? [[tLo, lo], [tHi, hi]] : [[tHi, hi], [tLo, lo]];
      out.t.push(p[0]!, q[0]!);
      out.v.push(p[1]!, q[1]!);
    }
  };
  for (const r of rows) {
    const mid = (r.t0 + r.t1) / 2;
    const b = span > 0 ? Math.min(buckets - 1, Math.max(0, Math.floor(((mid - a) / span) * buckets))) : 0;
    if (b !== cur) {
      emit();
      cur = b;
      lo = Infinity;
      hi = -Infinity;
      any = false;
      tFirst = mid;
    }
    if (r.c > 0 && r.lo !== null && r.hi !== null) {
      any = true;
      if (r.lo < lo) {
        lo = r.lo;
        tLo = mid;
      }
      if (r.hi > hi) {
        hi = r.hi;
        tHi = mid;
      }
    }
  }
  emit();
  return out;
}

