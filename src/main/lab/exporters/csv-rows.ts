// CSV rows of decoded sample chunks, as bytes: the one formatter of the samples CSV export, run on the export's own
// thread or in export worker threads. Values are the stored integers (decoded `quantised`), formatted by integer
// arithmetic (fixed-text.ts): the same text String(value) gives, without a string per cell.
import { decodeChunk, readingsOf, type SampleChunk } from '../store/sample-chunk';
import { scaleOf, SensorKind, sensorKindIndex, type ReadingField } from '../../../shared/sample';
import type { SampleExportColumn } from '../../../shared/export';
import { csvCell } from './csv';
import { decimalsOf, IsoTimeWriter, writeFixed } from './fixed-text';

export type TimeFormat = 'epoch' | 'iso';

/** How one CSV column is written: time, the sensor kind, or a reading with its stored decimals. */
type CsvColumn = { kind: 't'; decimals: number } | { kind: 'power_kind' } | { kind: 'reading'; field: ReadingField; decimals: number };

const KIND_TEXT = SensorKind.options.map((k) => Buffer.from(k));
/** A per-row sensor kind index as text ('average' for an unknown index, as sensorKindAt reads it). */
const kindText = (i: number) => KIND_TEXT[i] ?? KIND_TEXT[sensorKindIndex('average')]!;
/** The most bytes one cell takes: a reading (sign, 16 digits, point), ISO time (date, 7 decimals, Z), a sensor kind. */
const CELL_MAX = 32;

/** Formats chunks' rows (time, the chosen columns, then the device key) into a caller's buffer. */
export class CsvRowFormatter {
  private readonly plan: CsvColumn[];
  private readonly iso = new IsoTimeWriter();
  private device = '';
  private deviceText = Buffer.alloc(0);

  constructor(
    readonly columns: readonly SampleExportColumn[],
    private readonly time: TimeFormat,
  ) {
    this.plan = columns.map((f) => (f === 't' ? { kind: 't', decimals: decimalsOf(scaleOf('t')) } : f === 'power_kind' ? { kind: 'power_kind' } : { kind: 'reading', field: f, decimals: decimalsOf(scaleOf(f)) }));
  }

  /** The most bytes one row of this chunk's device can take. */
  rowBound(device: string): number {
    this.setDevice(device);
    return this.plan.length * (CELL_MAX + 1) + this.deviceText.length;
  }

  /** Writes rows [from, to) of a chunk decoded `quantised` at buf[pos] (room: rows * rowBound); returns the new position. */
  write(buf: Uint8Array, pos: number, c: SampleChunk, from: number, to: number): number {
    this.setDevice(c.device);
    const plan = this.plan;
    const dev = this.deviceText;
    const cols = plan.map((p) => (p.kind === 'reading' ? (c.cols.cols[p.field] ?? null) : null));
    const t = c.cols.t;
    const kinds = typeof c.cols.power_kind === 'string' ? null : c.cols.power_kind;
    const constKind = kindText(typeof c.cols.power_kind === 'string' ? sensorKindIndex(c.cols.power_kind) : 0);
    const iso = this.time === 'iso' ? this.iso : null;
    for (let i = from; i < to; i++) {
      for (let k = 0; k < plan.length; k++) {
        const p = plan[k]!;
        if (p.kind === 't') pos = iso ? iso.write(buf, pos, t[i]!, p.decimals) : writeFixed(buf, pos, t[i]!, p.decimals);
        else if (p.kind === 'power_kind') {
          const text = kinds ? kindText(kinds[i]!) : constKind;
          buf.set(text, pos);
          pos += text.length;
        } else {
          const col = cols[k];
          const v = col ? col[i]! : NaN;
          if (v === v) pos = writeFixed(buf, pos, v, p.decimals);
        }
        buf[pos++] = 44;
      }
      buf.set(dev, pos);
      pos += dev.length;
    }
    return pos;
  }

  private setDevice(device: string): void {
    if (device === this.device && this.deviceText.length) return;
    this.device = device;
    this.deviceText = Buffer.from(`${csvCell(device)}\n`);
  }
}

/** A batch of stored blocks for a worker thread: decoded, trimmed to their ranges and formatted there. */
export interface CsvJob {
  columns: readonly SampleExportColumn[];
  time: TimeFormat;
  blocks: { device: string; data: Uint8Array; n: number; from: number; to: number }[];
}

export interface CsvJobResult {
  bytes: Uint8Array;
  rows: number;
}

let scratch = new Uint8Array(0);

/** Runs one job (in a worker thread): the blocks' CSV rows, formatted into a reused buffer, copied out exactly sized. */
export function formatCsvJob(job: CsvJob): CsvJobResult {
  const formatter = new CsvRowFormatter(job.columns, job.time);
  const readings = readingsOf(job.columns);
  const bound = job.blocks.reduce((k, b) => k + b.n * formatter.rowBound(b.device), 0);
  if (scratch.length < bound) scratch = new Uint8Array(bound);
  const buf = scratch;
  let pos = 0;
  let rows = 0;
  for (const b of job.blocks) {
    const c = decodeChunk(b, readings, true);
    if (!c) continue;
    pos = formatter.write(buf, pos, c, c.a, c.b);
    rows += c.b - c.a;
  }
  return { bytes: buf.slice(0, pos), rows };
}
