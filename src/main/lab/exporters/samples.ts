// Samples out as CSV or Parquet, streamed: rows come one at a time from SQLite's cursor and leave in chunks (CSV)
// or row groups (Parquet), so memory stays flat for any number of samples. Written to a temp file, then renamed.
import { rename, stat, unlink } from 'node:fs/promises';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import type { Db } from '../store/db';
import { countSamples, iterateSamples, type SampleSelection } from '../store/sample-stream';
import { SAMPLE_EXPORT_COLUMNS, type SampleExportColumn } from '../../../shared/export';
import { VERSION } from '../version';
import { checkWritable, ExportError, openAtomicStream } from './atomic';
import { csvCell } from './csv';

export type TimeFormat = 'epoch' | 'iso';

export interface SampleExportOptions {
  selection: SampleSelection;
  columns: readonly SampleExportColumn[];
  time: TimeFormat;
  /** Called every few hundred thousand rows with rows done and the total. */
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

/** Streams the selected samples to a CSV file (header with units; device key and run id last). */
export async function exportSamplesCsv(db: Db, file: string, o: SampleExportOptions): Promise<SampleExportResult> {
  const total = o.progress ? countSamples(db, o.selection) : 0;
  const out = await openAtomicStream(file);
  let rows = 0;
  try {
    const ti = o.columns.indexOf('t');
    const iso = o.time === 'iso' && ti >= 0;
    const textCols = o.columns.map((c, i) => (c === 'power_kind' ? i : -1)).filter((i) => i >= 0);
    out.stream.write(`${[...o.columns.map((c) => headerOf(c, o.time)), 'device', 'run_id'].map(csvCell).join(',')}\n`);
    let chunk: string[] = [];
    for (const r of iterateSamples(db, o.selection, o.columns, csvCell)) {
      if (iso) r[ti] = isoTime(r[ti] as number);
      for (const i of textCols) r[i] = csvCell(r[i] as string);
      chunk.push(r.join(','));
      if (chunk.length === 8192) {
        if (!out.stream.write(chunk.join('\n') + '\n')) await new Promise<void>((ok) => out.stream.once('drain', () => ok()));
        chunk = [];
      }
      if (++rows % PROGRESS_EVERY === 0) o.progress?.(rows, total);
    }
    if (chunk.length) out.stream.write(chunk.join('\n') + '\n');
    return { path: out.path, bytes: await out.commit(), rows };
  } catch (e) {
    await out.abort();
    throw e instanceof ExportError ? e : new ExportError(`cannot write ${out.path}: ${(e as Error).message}`);
  }
}

const ROW_GROUP = 131_072;
type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

function parquetSchema(columns: readonly SampleExportColumn[]): SchemaElement[] {
  const el = (c: SampleExportColumn): SchemaElement => {
    if (c === 't') return { name: 't', type: 'DOUBLE', repetition_type: 'REQUIRED' };
    if (c === 'power_kind') return { name: c, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' };
    if (c === 'throttle_reasons') return { name: c, type: 'INT64', repetition_type: 'OPTIONAL' };
    return { name: c, type: 'DOUBLE', repetition_type: 'OPTIONAL' };
  };
  return [
    { name: 'root', num_children: columns.length + 2 },
    ...columns.map(el),
    { name: 'device', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    { name: 'run_id', type: 'INT32', repetition_type: 'OPTIONAL' },
  ];
}

/**
 * Streams the selected samples to a Parquet file, one row group per 131,072 rows. Time is epoch seconds (DOUBLE,
 * exact); units are in the file's key-value metadata (`caplab.units`), as Parquet has no column header to put them in.
 */
export async function exportSamplesParquet(db: Db, file: string, o: SampleExportOptions): Promise<SampleExportResult> {
  if (o.time === 'iso') throw new ExportError('Parquet keeps time as epoch seconds (DOUBLE, exact); --time iso is for CSV');
  const path = await checkWritable(file);
  const total = o.progress ? countSamples(db, o.selection) : 0;
  const tmp = `${path}.${process.pid}.tmp`;
  const names = [...o.columns, 'device', 'run_id'];
  const units = Object.fromEntries(o.columns.map((c) => [c, c === 't' ? 's since epoch' : UNIT.get(c) ?? null]));
  let rows = 0;
  try {
    const writer = new ParquetWriter({
      writer: fileWriter(tmp),
      schema: parquetSchema(o.columns),
      codec: 'SNAPPY',
      statistics: false,
      kvMetadata: [{ key: 'caplab.units', value: JSON.stringify(units) }, { key: 'caplab.schema', value: 'caplab.samples/1' }],
      createdBy: `caplab ${VERSION}`,
    });
    const ti = o.columns.indexOf('throttle_reasons');
    let cols: (number | string | bigint | null)[][] = names.map(() => []);
    const flush = () => {
      if (cols[0]!.length === 0) return;
      void writer.write({ columnData: names.map((name, i) => ({ name, data: cols[i]! })), rowGroupSize: cols[0]!.length });
      cols = names.map(() => []);
    };
    for (const r of iterateSamples(db, o.selection, o.columns)) {
      if (ti >= 0 && r[ti] != null) cols[ti]!.push(BigInt(r[ti] as number));
      else if (ti >= 0) cols[ti]!.push(null);
      for (let i = 0; i < r.length; i++) if (i !== ti) cols[i]!.push(r[i]!);
      if (cols[0]!.length === ROW_GROUP) flush();
      if (++rows % PROGRESS_EVERY === 0) o.progress?.(rows, total);
    }
    flush();
    writer.finish();
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e instanceof ExportError ? e : new ExportError(`cannot write ${path}: ${(e as Error).message}`);
  }
  return { path, bytes: (await stat(path)).size, rows };
}
