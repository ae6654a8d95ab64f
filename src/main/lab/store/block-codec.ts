// A block of one device's samples <-> one BLOB. Columns are quantised to their spec's scale and written as zigzag
// varints of deltas (or deltas of deltas), so a steady 100 ms GPU trace takes about 1-2 bytes per column.
// Layout: u8 version, u32 n, u8 columns, per column {u8 field id, u8 mode, u32 byte length}, then the payloads.
import { codecOf, readingFields, scaleOf, sampleSpec, summaryFields, type ReadingField, type SampleColumns } from '../../../shared/sample';

const VERSION = 1;
const enum Mode {
  Null = 0,
  Dense = 1,
  Sparse = 2,
  EnumBytes = 3,
  EnumConst = 4,
}
const MAX_Q = 2 ** 51;
const T_ID = sampleSpec.t.id;
const KIND_ID = sampleSpec.power_kind.id;
const fieldById = new Map<number, ReadingField>(readingFields.map((f) => [sampleSpec[f].id, f]));

export class CodecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CodecError';
  }
}

export interface BlockSummary {
  min: number;
  max: number;
  sum: number;
  count: number;
}

export interface EncodedBlock {
  data: Uint8Array;
  n: number;
  t0: number;
  t1: number;
  summaries: Partial<Record<ReadingField, BlockSummary>>;
}

/** A growable byte buffer with varint writes; one per process is reused by every encode. */
class Writer {
  buf = new Uint8Array(1 << 16);
  pos = 0;

  reserve(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** Zigzag varint of an integer with |x| < 2^52. */
  signed(x: number): void {
    let z = x >= 0 ? x * 2 : -x * 2 - 1;
    const buf = this.buf;
    let pos = this.pos;
    if (z < 0x80) buf[pos++] = z;
    else if (z < 0x4000) {
      buf[pos++] = (z & 0x7f) | 0x80;
      buf[pos++] = z >>> 7;
    } else {
      while (z >= 0x80000000) {
        buf[pos++] = (z % 128) | 0x80;
        z = Math.floor(z / 128);
      }
      while (z >= 0x80) {
        buf[pos++] = (z & 0x7f) | 0x80;
        z >>>= 7;
      }
      buf[pos++] = z;
    }
    this.pos = pos;
  }

  u32At(at: number, v: number): void {
    this.buf[at] = v & 0xff;
    this.buf[at + 1] = (v >>> 8) & 0xff;
    this.buf[at + 2] = (v >>> 16) & 0xff;
    this.buf[at + 3] = (v >>> 24) & 0xff;
  }
}

const w = new Writer();

function quantise(field: string, v: number, scale: number): number {
  const q = Math.round(v * scale);
  if (!(Math.abs(q) < MAX_Q)) throw new CodecError(`${field} value ${v} is out of the storable range`);
  return q;
}

/**
 * Writes present values of a column [from, to) as deltas (or deltas of deltas) of their quantised values. The hot
 * loop of an import's storing: buffer, position and summary live in locals (w.reserve made room for the block).
 */
function writeValues(field: string, col: Float64Array, from: number, to: number, scale: number, delta2: boolean, s: BlockSummary | null): void {
  let prev = 0;
  let prevD = 0;
  const buf = w.buf;
  let pos = w.pos;
  let min = s ? s.min : 0;
  let max = s ? s.max : 0;
  let sum = s ? s.sum : 0;
  let count = s ? s.count : 0;
  for (let i = from; i < to; i++) {
    const v = col[i]!;
    if (v !== v) continue;
    const q = quantise(field, v, scale);
    let x = q - prev;
    if (delta2) {
      const d = x;
      x = d - prevD;
      prevD = d;
    }
    prev = q;
    // Zigzag varint, as Writer.signed: 1-2 bytes inline, longer ones through the writer.
    const z = x >= 0 ? x * 2 : -x * 2 - 1;
    if (z < 0x80) buf[pos++] = z;
    else if (z < 0x4000) {
      buf[pos++] = (z & 0x7f) | 0x80;
      buf[pos++] = z >>> 7;
    } else {
      w.pos = pos;
      w.signed(x);
      pos = w.pos;
    }
    if (s) {
      const y = q / scale;
      if (y < min) min = y;
      if (y > max) max = y;
      sum += y;
      count++;
    }
  }
  w.pos = pos;
  if (s) {
    s.min = min;
    s.max = max;
    s.sum = sum;
    s.count = count;
  }
}

/** Encodes rows [from, to) of a columnar batch (t ascending) as one block. */
export function encodeBlock(c: SampleColumns, from = 0, to = c.n): EncodedBlock {
  const n = to - from;
  if (n <= 0) throw new CodecError('a block needs at least one sample');
  const present = readingFields.filter((f) => c.cols[f] !== undefined);
  const columns = 2 + present.length;
  w.pos = 0;
  w.reserve(6 + columns * 6 + n * (columns * 10 + 1));
  w.buf[w.pos++] = VERSION;
  w.u32At(w.pos, n);
  w.pos += 4;
  w.buf[w.pos++] = columns;
  const dir = w.pos;
  w.pos += columns * 6;
  let slot = 0;
  const column = (id: number, mode: Mode, write: () => void) => {
    const at = w.pos;
    write();
    const o = dir + slot++ * 6;
    w.buf[o] = id;
    w.buf[o + 1] = mode;
    w.u32At(o + 2, w.pos - at);
  };

  for (let i = from; i < to; i++) {
    const t = c.t[i]!;
    if (!Number.isFinite(t)) throw new CodecError(`sample ${i} has no valid time (${t})`);
    if (i > from && t < c.t[i - 1]!) throw new CodecError(`samples are not in time order at row ${i} (${t} after ${c.t[i - 1]})`);
  }
  column(T_ID, Mode.Dense, () => writeValues('t', c.t, from, to, scaleOf('t'), true, null));

  const kind = c.power_kind ?? 'instant';
  if (typeof kind === 'string') column(KIND_ID, Mode.EnumConst, () => (w.buf[w.pos++] = ['instant', 'average', 'counter'].indexOf(kind)));
  else {
    let same = true;
    for (let i = from + 1; i < to && same; i++) same = kind[i] === kind[from];
    if (same) column(KIND_ID, Mode.EnumConst, () => (w.buf[w.pos++] = kind[from]!));
    else
      column(KIND_ID, Mode.EnumBytes, () => {
        w.buf.set(kind.subarray(from, to), w.pos);
        w.pos += n;
      });
  }

  const summaries: Partial<Record<ReadingField, BlockSummary>> = {};
  for (const f of present) {
    const col = c.cols[f]!;
    let nulls = 0;
    for (let i = from; i < to; i++) if (col[i] !== col[i]) nulls++;
    const s = summaryFields.includes(f) ? { min: Infinity, max: -Infinity, sum: 0, count: 0 } : null;
    const id = sampleSpec[f].id;
    if (nulls === n) column(id, Mode.Null, () => undefined);
    else if (nulls === 0) column(id, Mode.Dense, () => writeValues(f, col, from, to, scaleOf(f), codecOf(f) === 'delta2', s));
    else
      column(id, Mode.Sparse, () => {
        const bytes = (n + 7) >> 3;
        w.buf.fill(0, w.pos, w.pos + bytes);
        for (let i = 0; i < n; i++) if (col[from + i] === col[from + i]) w.buf[w.pos + (i >> 3)]! |= 1 << (i & 7);
        w.pos += bytes;
        writeValues(f, col, from, to, scaleOf(f), codecOf(f) === 'delta2', s);
      });
    if (s && s.count > 0) summaries[f] = s;
  }
  return { data: w.buf.slice(0, w.pos), n, t0: c.t[from]!, t1: c.t[to - 1]!, summaries };
}

/** Zigzag varint (arbitrary size, up to 2^53) starting at buf[pos] whose first two bytes had the high bit set. */
function readLong(buf: Uint8Array, pos: number): { x: number; pos: number } {
  let z = 0;
  let mul = 1;
  let b: number;
  do {
    b = buf[pos++]!;
    z += (b & 0x7f) * mul;
    mul *= 128;
  } while (b >= 0x80);
  return { x: z % 2 === 0 ? z / 2 : -(z + 1) / 2, pos };
}

/** Decodes n values (deltas or deltas of deltas) into out; NaN where the mask says no reading. Hot loop: 1-3 byte varints inline. */
function readValues(buf: Uint8Array, pos: number, out: Float64Array, n: number, mask: Uint8Array | null, scale: number, delta2: boolean): void {
  let prev = 0;
  let prevD = 0;
  for (let i = 0; i < n; i++) {
    if (mask !== null && (mask[i >> 3]! & (1 << (i & 7))) === 0) {
      out[i] = NaN;
      continue;
    }
    let x: number;
    const b0 = buf[pos]!;
    if (b0 < 0x80) {
      x = (b0 >>> 1) ^ -(b0 & 1);
      pos += 1;
    } else {
      const b1 = buf[pos + 1]!;
      if (b1 < 0x80) {
        const z = (b0 & 0x7f) | (b1 << 7);
        x = (z >>> 1) ^ -(z & 1);
        pos += 2;
      } else {
        const r = readLong(buf, pos);
        x = r.x;
        pos = r.pos;
      }
    }
    if (delta2) {
      prevD += x;
      prev += prevD;
    } else prev += x;
    out[i] = prev / scale;
  }
}

/**
 * Decodes a block; `fields` limits which reading columns are decoded (all by default). Missing columns are absent.
 * `quantised`: values stay the stored integers round(value * scale) (exporters format them without division).
 */
export function decodeBlock(data: Uint8Array, fields?: readonly ReadingField[], quantised = false): SampleColumns {
  if (data[0] !== VERSION) throw new CodecError(`sample block version ${data[0]} is not readable by this CapLab`);
  const n = (data[1]! | (data[2]! << 8) | (data[3]! << 16)) + data[4]! * 2 ** 24;
  const columns = data[5]!;
  let payload = 6 + columns * 6;
  const t = new Float64Array(n);
  const cols: SampleColumns['cols'] = {};
  let kind: SampleColumns['power_kind'] = 'instant';
  const want = fields ? new Set(fields) : null;
  for (let c = 0; c < columns; c++) {
    const o = 6 + c * 6;
    const id = data[o]!;
    const mode = data[o + 1]! as Mode;
    const len = data[o + 2]! | (data[o + 3]! << 8) | (data[o + 4]! << 16) | (data[o + 5]! << 24);
    const at = payload;
    payload += len;
    if (id === T_ID) readValues(data, at, t, n, null, quantised ? 1 : scaleOf('t'), true);
    else if (id === KIND_ID) kind = mode === Mode.EnumConst ? (['instant', 'average', 'counter'] as const)[data[at]!] ?? 'average' : data.slice(at, at + n);
    else {
      const f = fieldById.get(id);
      if (!f || (want && !want.has(f))) continue;
      const out = new Float64Array(n);
      const scale = quantised ? 1 : scaleOf(f);
      if (mode === Mode.Null) out.fill(NaN);
      else if (mode === Mode.Dense) readValues(data, at, out, n, null, scale, codecOf(f) === 'delta2');
      else {
        const bytes = (n + 7) >> 3;
        readValues(data, at + bytes, out, n, data.subarray(at, at + bytes), scale, codecOf(f) === 'delta2');
      }
      cols[f] = out;
    }
  }
  return { n, t, cols, power_kind: kind };
}
