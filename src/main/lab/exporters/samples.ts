// Samples out as CSV or Parquet, streamed: blocks are decoded one at a time and leave in chunks (CSV) or row groups
// (Parquet), so memory stays flat for any number of samples. Written to a temp file, then renamed.
import { rename, stat, unlink } from 'node:fs/promises';
import type { Db } from '../store/db';
import { alwaysPresent, countSamples, iterateSampleBlocks, iterateSampleChunks, type SampleSelection } from '../store/sample-stream';
import { SAMPLE_EXPORT_COLUMNS, type SampleExportColumn } from '../../../shared/export';
import { VERSION } from '../environment/version';
import { checkWritable, ExportError, openAtomicStream } from '../files/atomic';
import { csvCell } from './csv';
import { RowGroup } from './parquet-columns';
import type { GatheredGroup } from './parquet-group';
import type { ParquetFileOptions } from './parquet-file';
import { HereEncoder, WorkerEncoder, type ParquetEncoder } from './parquet-encoder';
import { CsvRowFormatter, type CsvJob, type CsvJobResult, type TimeFormat } from './csv-rows';
import { CsvWorkers, exportThreads } from './csv-workers';

export type { TimeFormat };

export interface SampleExportOptions {
  selection: SampleSelection;
  columns: readonly SampleExportColumn[];
  time: TimeFormat;
  /** Worker threads formatting CSV rows (default: exportThreads()); 0 formats on this thread. Parquet: > 0 encodes
   * in one worker thread, 0 on this thread. */
  threads?: number;
  /** Called every few hundred thousand rows with rows done and (about) the total. */
  progress?: (done: number, total: number) => void;
}

const UNIT = new Map<string, string | null>(SAMPLE_EXPORT_COLUMNS.map((c) => [c.name, c.unit]));
const PROGRESS_EVERY = 250_000;

/** "power_w [W]": a column name with its unit, as CSV headers carry them. */
export function headerOf(c: SampleExportColumn, time: TimeFormat): string {
  if (c === 't') return time === 'iso' ? 't [ISO-8601 UTC]' : 't [s since epoch]';
  const u = UNIT.get(c);
  return u ? `${c} [${u}]` : c;
}

/** Epoch seconds as ISO-8601 UTC keeping every decimal the stored number has (Date alone keeps milliseconds). */
export function isoTime(t: number): string {
  const whole = Math.floor(t);
  const text = String(t);
  const dot = text.indexOf('.');
  return `${new Date(whole * 1000).toISOString().slice(0, 19)}${dot >= 0 && !text.includes('e') ? text.slice(dot) : ''}Z`;
}

export interface SampleExportResult {
  path: string;
  bytes: number;
  rows: number;
}

const CHUNK_BYTES = 1 << 22;
/** Rows per worker job, and the fewest rows for which starting worker threads pays off. */
const JOB_ROWS = 65_536;
const WORKER_MIN_ROWS = 200_000;

/**
 * Streams the selected samples to a CSV file (header with units; the device key last). Blocks are decoded to their
 * stored integers and formatted as bytes (csv-rows.ts); large exports do that in worker threads, pipelined with the
 * database reads and file writes here, and each few megabytes leave in one write.
 */
export async function exportSamplesCsv(db: Db, file: string, o: SampleExportOptions): Promise<SampleExportResult> {
  const total = countSamples(db, o.selection);
  const threads = total >= WORKER_MIN_ROWS ? (o.threads ?? exportThreads()) : 0;
  const out = await openAtomicStream(file);
  let rows = 0;
  let next = PROGRESS_EVERY;
  const write = async (bytes: Uint8Array, n: number) => {
    if (!out.stream.write(bytes)) await new Promise<void>((ok) => out.stream.once('drain', () => ok()));
    rows += n;
    if (rows >= next) {
      o.progress?.(rows, total);
      next = rows + PROGRESS_EVERY;
    }
  };
  try {
    await write(Buffer.from(`${[...o.columns.map((c) => headerOf(c, o.time)), 'device'].map(csvCell).join(',')}\n`), 0);
    if (threads > 0) await csvInWorkers(db, o, threads, write);
    else await csvHere(db, o, write);
    return { path: out.path, bytes: await out.commit(), rows };
  } catch (e) {
    await out.abort();
    throw e instanceof ExportError ? e : new ExportError(`cannot write ${out.path}: ${(e as Error).message}`);
  }
}

type WriteRows = (bytes: Uint8Array, rows: number) => Promise<void>;

/** Formats on this thread into 4 MB buffers. */
async function csvHere(db: Db, o: SampleExportOptions, write: WriteRows): Promise<void> {
  const f = new CsvRowFormatter(o.columns, o.time);
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let pos = 0;
  let pending = 0;
  const flush = async () => {
    const full = buf.subarray(0, pos);
    buf = Buffer.allocUnsafe(CHUNK_BYTES);
    pos = 0;
    await write(full, pending);
    pending = 0;
  };
  for (const c of iterateSampleChunks(db, o.selection, o.columns, true)) {
    const per = Math.floor(CHUNK_BYTES / f.rowBound(c.device));
    for (let i = c.a; i < c.b; ) {
      const room = Math.floor((CHUNK_BYTES - pos) / f.rowBound(c.device));
      if (room === 0) {
        await flush();
        continue;
      }
      const to = Math.min(c.b, i + Math.min(room, per));
      pos = f.write(buf, pos, c, i, to);
      pending += to - i;
      i = to;
    }
  }
  await flush();
}

/** Batches of blocks to worker threads, at most two per thread in flight (flat memory), written back in order. */
async function csvInWorkers(db: Db, o: SampleExportOptions, threads: number, write: WriteRows): Promise<void> {
  const pool = new CsvWorkers(threads);
  const inflight: Promise<CsvJobResult>[] = [];
  const writeOldest = async () => {
    const r = await inflight.shift()!;
    await write(r.bytes, r.rows);
  };
  try {
    let blocks: CsvJob['blocks'] = [];
    let n = 0;
    const post = () => {
      const p = pool.run({ columns: o.columns, time: o.time, blocks });
      p.catch(() => undefined);
      inflight.push(p);
      blocks = [];
      n = 0;
    };
    for (const b of iterateSampleBlocks(db, o.selection)) {
      blocks.push(b);
      n += b.n;
      if (n < JOB_ROWS) continue;
      post();
      while (inflight.length >= threads * 2) await writeOldest();
    }
    if (blocks.length) post();
    while (inflight.length) await writeOldest();
  } finally {
    await pool.close();
  }
}

const ROW_GROUP = 262_144;
type SchemaElement = ParquetFileOptions['schema'][number];

/** Time, the texts and the `required` readings are REQUIRED columns, which carry no definition levels to encode. */
function parquetSchema(columns: readonly SampleExportColumn[], required: ReadonlySet<string>): SchemaElement[] {
  const el = (c: SampleExportColumn): SchemaElement => {
    if (c === 'power_kind') return { name: c, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' };
    return { name: c, type: 'DOUBLE', repetition_type: required.has(c) ? 'REQUIRED' : 'OPTIONAL' };
  };
  return [{ name: 'root', num_children: columns.length + 1 }, ...columns.map(el), { name: 'device', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' }];
}

/**
 * Streams the selected samples to a Parquet file, one row group per 262,144 rows gathered in typed arrays; large
 * exports encode the groups in a worker thread while this thread reads the next (parquet-encoder.ts). Time is
 * epoch seconds (DOUBLE, exact); units are in the file's key-value metadata (`caplab.units`), as Parquet has no
 * column header to put them in.
 */
export async function exportSamplesParquet(db: Db, file: string, o: SampleExportOptions): Promise<SampleExportResult> {
  if (o.time === 'iso') throw new ExportError('Parquet keeps time as epoch seconds (DOUBLE, exact); --time iso is for CSV');
  const path = await checkWritable(file);
  const total = countSamples(db, o.selection);
  const inWorker = total >= WORKER_MIN_ROWS && (o.threads ?? exportThreads()) > 0;
  const tmp = `${path}.${process.pid}.tmp`;
  const units = Object.fromEntries(o.columns.map((c) => [c, c === 't' ? 's since epoch' : (UNIT.get(c) ?? null)]));
  const required = new Set<string>(['t', ...alwaysPresent(db, o.selection, o.columns)]);
  const options: ParquetFileOptions = {
    schema: parquetSchema(o.columns, required),
    // Uncompressed: hyparquet-writer's Snappy (JavaScript) took ~40% of the encoding time for ~1.7x smaller files;
    // dictionary encoding (the default, kept) already shrinks the repetitive columns.
    codec: 'UNCOMPRESSED',
    statistics: false,
    kvMetadata: [
      { key: 'caplab.units', value: JSON.stringify(units) },
      { key: 'caplab.schema', value: 'caplab.samples/1' },
    ],
    createdBy: `caplab ${VERSION}`,
  };
  let rows = 0;
  let next = PROGRESS_EVERY;
  let encoder: ParquetEncoder | null = null;
  try {
    const group = new RowGroup(o.columns, ROW_GROUP, required);
    const recycle = (g: GatheredGroup) => group.recycle(g);
    encoder = inWorker ? new WorkerEncoder(tmp, options, recycle) : new HereEncoder(tmp, options, recycle);
    const flush = async () => {
      if (group.n === 0) return;
      rows += group.n;
      await encoder!.write(group.take());
      if (rows >= next) {
        o.progress?.(rows, total);
        next = rows + PROGRESS_EVERY;
      }
    };
    for (const c of iterateSampleChunks(db, o.selection, o.columns)) {
      for (let i = c.a; i < c.b; ) {
        const count = Math.min(c.b - i, group.capacity - group.n);
        group.add(c, i, count);
        i += count;
        if (group.n === group.capacity) await flush();
      }
    }
    await flush();
    await encoder.finish();
    await encoder.close();
    encoder = null;
    await rename(tmp, path);
  } catch (e) {
    await encoder?.close();
    await unlink(tmp).catch(() => undefined);
    throw e instanceof ExportError ? e : new ExportError(`cannot write ${path}: ${(e as Error).message}`);
  }
  return { path, bytes: (await stat(path)).size, rows };
}
