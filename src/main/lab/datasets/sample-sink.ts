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

  /** Writes a batch (devices interleaved); deviceRows maps the batch's device index to the devices-table id. */
  write(b: ColumnBatch, deviceRows: readonly number[]): void {
    const count = new Int32Array(deviceRows.length);
    for (let i = 0; i < b.n; i++) count[b.device[i]!]!++;
    for (let d = 0; d < deviceRows.length; d++) {
      const n = count[d]!;
      if (n === 0) continue;
      const idx = new Int32Array(n);
      let k = 0;
      for (let i = 0; i < b.n; i++) if (b.device[i] === d) idx[k++] = i;
      this.writer.append(this.stream(deviceRows[d]!), this.columns(b, idx));
    }
    this.samples += b.n;
  }

  /** One device's rows of a batch as the store's columns, t ascending. */
  private columns(b: ColumnBatch, idx: Int32Array): SampleColumns {
    let sorted = true;
    for (let k = 1; k < idx.length && sorted; k++) sorted = b.t[idx[k]!]! >= b.t[idx[k - 1]!]!;
    if (!sorted) idx = Int32Array.from([...idx].sort((x, y) => b.t[x]! - b.t[y]! || x - y));
    const n = idx.length;
    const t = new Float64Array(n);
    const kinds = new Uint8Array(n);
    const power = new Float64Array(n);
    const avgOut = new Float64Array(n);
    const c = b.cols;
    let anyPower = false;
    let anyAvg = false;
    for (let k = 0; k < n; k++) {
      const i = idx[k]!;
      t[k] = b.t[i]!;
      const inst = c.power_instant_w[i]!;
      const der = c.power_derived_w[i]!;
      const avg = c.power_avg_w[i]!;
      if (!Number.isNaN(inst)) {
        power[k] = inst;
        kinds[k] = INSTANT;
        avgOut[k] = avg;
      } else if (!Number.isNaN(der)) {
        power[k] = der;
        kinds[k] = COUNTER;
        avgOut[k] = avg;
      } else {
        power[k] = avg;
        kinds[k] = AVERAGE;
        avgOut[k] = NaN;
      }
      anyPower ||= !Number.isNaN(power[k]!);
      anyAvg ||= !Number.isNaN(avgOut[k]!);
    }
    const cols: SampleColumns['cols'] = {};
    if (anyPower) cols.power_w = power;
    if (anyAvg) cols.power_avg_w = avgOut;
    for (const [from, to] of DIRECT) {
      const src = c[from];
      let any = false;
      const out = new Float64Array(n);
      for (let k = 0; k < n; k++) {
        const v = src[idx[k]!]!;
        out[k] = v;
        if (!any && !Number.isNaN(v)) any = true;
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
