// Row groups of a samples Parquet export, gathered column by column in typed arrays (hyparquet-writer takes a
// Float64Array as a DOUBLE column as is), and a file sink that leaves in a few large writes.
import { closeSync, openSync, writeSync } from 'node:fs';
import { ByteWriter } from 'hyparquet-writer';
import type { SampleChunk } from '../store/sample-chunk';
import { valueAt } from '../store/sample-stream';
import type { SampleExportColumn } from '../../../shared/export';

type ColumnData = { name: string; data: Float64Array | (number | null)[] | string[] };

/** One row group being gathered: a Float64Array per numeric column, the text columns as arrays of shared strings. */
export class RowGroup {
  private readonly numbers: Float64Array[];
  private readonly missing: boolean[];
  private readonly texts: string[][];
  n = 0;

  constructor(
    private readonly columns: readonly SampleExportColumn[],
    readonly capacity: number,
    /** Columns written REQUIRED (no definition levels): a missing reading in one of them is an error, not a null. */
    private readonly required: ReadonlySet<string> = new Set(),
  ) {
    this.numbers = columns.map((c) => (c === 'power_kind' ? new Float64Array(0) : new Float64Array(capacity)));
    this.missing = columns.map(() => false);
    this.texts = [...columns.filter((c) => c === 'power_kind').map(() => []), []];
  }

  /** Copies rows [from, from + count) of a decoded chunk (count <= capacity - n). */
  add(c: SampleChunk, from: number, count: number): void {
    let text = 0;
    this.columns.forEach((f, k) => {
      if (f === 'power_kind') {
        const out = this.texts[text++]!;
        const kind = c.cols.power_kind;
        if (typeof kind === 'string') for (let i = 0; i < count; i++) out.push(kind);
        else for (let i = from; i < from + count; i++) out.push(valueAt(c.cols, f, i) as string);
        return;
      }
      const src = f === 't' ? c.cols.t : c.cols.cols[f];
      const dst = this.numbers[k]!;
      if (!src) {
        dst.fill(NaN, this.n, this.n + count);
        this.missing[k] = true;
        return;
      }
      const part = src.subarray(from, from + count);
      dst.set(part, this.n);
      if (!this.missing[k]) for (let i = 0; i < count && !this.missing[k]; i++) this.missing[k] = part[i] !== part[i];
    });
    const device = this.texts[text]!;
    for (let i = 0; i < count; i++) device.push(c.device);
    this.n += count;
  }

  /** The gathered rows as hyparquet-writer column data; missing readings of an OPTIONAL column become nulls. */
  columnData(): ColumnData[] {
    let text = 0;
    const out: ColumnData[] = this.columns.map((name, k) => {
      if (name === 'power_kind') return { name, data: this.texts[text++]! };
      const col = this.numbers[k]!.subarray(0, this.n);
      if (this.missing[k] && this.required.has(name)) throw new Error(`column ${name} has a missing reading, though the block summaries count none`);
      return { name, data: this.missing[k] ? Array.from(col, (v) => (v === v ? v : null)) : col };
    });
    out.push({ name: 'device', data: this.texts[text]! });
    return out;
  }

  clear(): void {
    this.n = 0;
    this.missing.fill(false);
    for (const t of this.texts) t.length = 0;
  }
}

/** A hyparquet-writer sink writing to a file descriptor whenever 8 MB are buffered: few, large writes. */
export function fileSink(path: string): ByteWriter & { close(): void } {
  const fd = openSync(path, 'w');
  const w = new ByteWriter(1 << 23) as ByteWriter & { close(): void };
  const flush = () => {
    let done = 0;
    while (done < w.index) done += writeSync(fd, new Uint8Array(w.buffer, done, w.index - done));
    w.index = 0;
  };
  const grow = w.ensure.bind(w);
  w.ensure = (size: number) => {
    if (w.index + size > w.buffer.byteLength && w.index > 0) flush();
    grow(size);
  };
  w.finish = flush;
  w.close = () => closeSync(fd);
  return w;
}
