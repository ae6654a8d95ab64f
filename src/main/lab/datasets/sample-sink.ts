// Columnar batches from the parsers -> the block store, one stream per dataset device. Power columns by sensor
// kind become the sample model's power_w + power_kind (instant, else counter-derived, else average) and power_avg_w.
import type { ColumnBatch } from '../../../core/import';
import type { ReadingField, SampleColumns } from '../../../shared/sample';
import { sensorKindIndex } from '../../../shared/sample';
import type { Db } from '../store/db';
import { SampleWriter, streamFor } from '../store/sample-blocks';

const DIRECT: readonly [keyof ColumnBatch['cols'], ReadingField][] = [
  ['energy_mj', 'energy_mj'],
  ['sm_clock_mhz', 'sm_clock_mhz'],
  ['mem_clock_mhz', 'mem_clock_mhz'],
  ['temp_c', 'temp_c'],
  ['util_gpu', 'util_gpu'],
  ['util_mem', 'util_mem'],
  ['mem_used_mb', 'mem_used_mb'],
  ['limit_w', 'limit_w'],
];
const INSTANT = sensorKindIndex('instant');
const AVERAGE = sensorKindIndex('average');
const COUNTER = sensorKindIndex('counter');

function hasValue(col: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (col[i] === col[i]) return true;
  return false;
}

export class DatasetSampleSink {
  private readonly writer: SampleWriter;
  private readonly streams = new Map<number, number>();
  samples = 0;

  constructor(
    private readonly db: Db,
    private readonly datasetId: number,
  ) {
    this.writer = new SampleWriter(db);
  }

  private stream(deviceRow: number): number {
    let s = this.streams.get(deviceRow);
    if (s === undefined) {
      s = streamFor(this.db, { dataset_id: this.datasetId }, deviceRow);
      this.streams.set(deviceRow, s);
    }
    return s;
  }

  /** Scratch columns of one device's rows, reused for every device and batch (the writer copies what it keeps). */
  private scratch: { t: Float64Array; kinds: Uint8Array; cols: Map<ReadingField, Float64Array>; idx: Int32Array } | null = null;

  /** Writes a batch (devices interleaved); deviceRows maps the batch's device index to the devices-table id. */
  write(b: ColumnBatch, deviceRows: readonly number[]): void {
    const devices = deviceRows.length;
    // Rows grouped by device in one pass: idx holds each device's row numbers in a region of its own.
    const start = new Int32Array(devices + 1);
    for (let i = 0; i < b.n; i++) start[b.device[i]! + 1]!++;
    for (let d = 0; d < devices; d++) start[d + 1]! += start[d]!;
    const idx = this.scratchFor(b.t.length).idx;
    const next = start.slice(0, devices);
    for (let i = 0; i < b.n; i++) idx[next[b.device[i]!]!++] = i;
    // Which of the batch's channels hold any reading at all (most logs fill a few of them).
    const present = DIRECT.filter(([from]) => hasValue(b.cols[from], b.n));
    for (let d = 0; d < devices; d++) {
      const n = start[d + 1]! - start[d]!;
      if (n > 0) this.writer.append(this.stream(deviceRows[d]!), this.columns(b, idx.subarray(start[d]!, start[d + 1]!), n, present));
    }
    this.samples += b.n;
  }

  private scratchFor(capacity: number): NonNullable<DatasetSampleSink['scratch']> {
    if (!this.scratch || this.scratch.t.length < capacity)
      this.scratch = { t: new Float64Array(capacity), kinds: new Uint8Array(capacity), cols: new Map(), idx: new Int32Array(capacity) };
    return this.scratch;
  }

  private scratchCol(f: ReadingField): Float64Array {
    const sc = this.scratch!;
    let c = sc.cols.get(f);
    if (!c) {
      c = new Float64Array(sc.t.length);
      sc.cols.set(f, c);
    }
    return c;
  }

  /** One device's rows (idx[0, n)) of a batch as the store's columns, t ascending. */
  private columns(b: ColumnBatch, idx: Int32Array, n: number, present: typeof DIRECT): SampleColumns {
    let sorted = true;
    for (let k = 1; k < n && sorted; k++) sorted = b.t[idx[k]!]! >= b.t[idx[k - 1]!]!;
    if (!sorted) idx.set(Int32Array.from(idx.subarray(0, n)).sort((x, y) => b.t[x]! - b.t[y]! || x - y));
    const sc = this.scratch!;
    const t = sc.t;
    const kinds = sc.kinds;
    const power = this.scratchCol('power_w');
    const avgOut = this.scratchCol('power_avg_w');
    const c = b.cols;
    let anyPower = false;
    let anyAvg = false;
    for (let k = 0; k < n; k++) {
      const i = idx[k]!;
      t[k] = b.t[i]!;
      const inst = c.power_instant_w[i]!;
      const der = c.power_derived_w[i]!;
      const avg = c.power_avg_w[i]!;
      let p: number;
      let a: number;
      if (inst === inst) {
        p = inst;
        kinds[k] = INSTANT;
        a = avg;
      } else if (der === der) {
        p = der;
        kinds[k] = COUNTER;
        a = avg;
      } else {
        p = avg;
        kinds[k] = AVERAGE;
        a = NaN;
      }
      power[k] = p;
      avgOut[k] = a;
      if (p === p) anyPower = true;
      if (a === a) anyAvg = true;
    }
    const cols: SampleColumns['cols'] = {};
    if (anyPower) cols.power_w = power;
    if (anyAvg) cols.power_avg_w = avgOut;
    for (const [from, to] of present) {
      const src = c[from];
      let any = false;
      const out = this.scratchCol(to);
      for (let k = 0; k < n; k++) {
        const v = src[idx[k]!]!;
        out[k] = v;
        if (v === v) any = true;
      }
      if (any) cols[to] = out;
    }
    return { n, t, cols, power_kind: kinds };
  }

  close(): void {
    this.writer.close();
  }

  /** After a rollback: the streams created since may be gone, so each is looked up again on next use. */
  forgetStreams(): void {
    this.streams.clear();
  }
}
