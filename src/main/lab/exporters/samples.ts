// Samples out as CSV or Parquet, streamed: blocks are decoded one at a time and leave in chunks (CSV) or row groups
// (Parquet), so memory stays flat for any number of samples. Written to a temp file, then renamed.
import { rename, stat, unlink } from 'node:fs/promises';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import type { Db } from '../store/db';
import { countSamples, iterateSampleChunks, valueAt, type SampleChunk, type SampleSelection } from '../store/sample-stream';
import { SAMPLE_EXPORT_COLUMNS, type SampleExportColumn } from '../../../shared/export';
import { VERSION } from '../version';
import { checkWritable, ExportError, openAtomicStream } from './atomic';
import { csvCell } from './csv';

export type TimeFormat = 'epoch' | 'iso';

export interface SampleExportOptions {
  selection: SampleSelection;
  columns: readonly SampleExportColumn[];
  time: TimeFormat;
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

/** The text of one CSV column over a chunk's rows: numbers as JS prints them (shortest exact form), null as empty. */
function columnText(c: SampleChunk, field: SampleExportColumn, time: TimeFormat): string[] {
  const out = new Array<string>(c.b - c.a);
  if (field === 't') {
    for (let i = c.a; i < c.b; i++) out[i - c.a] = time === 'iso' ? isoTime(c.cols.t[i]!) : String(c.cols.t[i]!);
  } else if (field === 'power_kind') {
    for (let i = c.a; i < c.b; i++) out[i - c.a] = valueAt(c.cols, field, i) as string;
  } else {
    const col = c.cols.cols[field];
    for (let i = c.a; i < c.b; i++) {
      const v = col ? col[i]! : NaN;
      out[i - c.a] = v === v ? String(v) : '';
    }
  }
  return out;
}

/** Streams the selected samples to a CSV file (header with units; the device key last). */
export async function exportSamplesCsv(db: Db, file: string, o: SampleExportOptions): Promise<SampleExportResult> {
  const total = o.progress ? countSamples(db, o.selection) : 0;
  const out = await openAtomicStream(file);
  let rows = 0;
  let next = PROGRESS_EVERY;
  try {
    out.stream.write(`${[...o.columns.map((c) => headerOf(c, o.time)), 'device'].map(csvCell).join(',')}\n`);
    for (const c of iterateSampleChunks(db, o.selection, o.columns)) {
      const cols = o.columns.map((f) => columnText(c, f, o.time));
      const dev = csvCell(c.device);
      const n = c.b - c.a;
      const lines = new Array<string>(n);
      for (let i = 0; i < n; i++) {
        let line = '';
        for (const col of cols) line += col[i] + ',';
        lines[i] = line + dev;
      }
      if (!out.stream.write(lines.join('\n') + '\n')) await new Promise<void>((ok) => out.stream.once('drain', () => ok()));
      rows += n;
      if (rows >= next) {
        o.progress?.(rows, total);
        next += PROGRESS_EVERY;
      }
    }
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
    return { name: c, type: 'DOUBLE', repetition_type: 'OPTIONAL' };
  };
  return [{ name: 'root', num_children: columns.length + 1 }, ...columns.map(el), { name: 'device', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' }];
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
  const names = [...o.columns, 'device'];
  const units = Object.fromEntries(o.columns.map((c) => [c, c === 't' ? 's since epoch' : (UNIT.get(c) ?? null)]));
  let rows = 0;
  let next = PROGRESS_EVERY;
  try {
    const writer = new ParquetWriter({
      writer: fileWriter(tmp),
      schema: parquetSchema(o.columns),
      codec: 'SNAPPY',
      statistics: false,
      kvMetadata: [
        { key: 'caplab.units', value: JSON.stringify(units) },
        { key: 'caplab.schema', value: 'caplab.samples/1' },
      ],
      createdBy: `caplab ${VERSION}`,
    });
    let cols: (number | string | null)[][] = names.map(() => []);
    const flush = () => {
      if (cols[0]!.length === 0) return;
      void writer.write({ columnData: names.map((name, i) => ({ name, data: cols[i]! })), rowGroupSize: cols[0]!.length });
      cols = names.map(() => []);
    };
    for (const c of iterateSampleChunks(db, o.selection, o.columns)) {
      for (let i = c.a; i < c.b; i++) {
        for (let k = 0; k < o.columns.length; k++) cols[k]!.push(valueAt(c.cols, o.columns[k]!, i));
        cols[o.columns.length]!.push(c.device);
        if (cols[0]!.length === ROW_GROUP) flush();
      }
      rows += c.b - c.a;
      if (rows >= next) {
        o.progress?.(rows, total);
        next += PROGRESS_EVERY;
      }
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
