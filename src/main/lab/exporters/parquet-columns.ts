// Row groups of a samples Parquet export, gathered column by column from decoded blocks into typed arrays
// (parquet-group.ts), so that a gathered group can be handed to a worker thread by transfer, not copy.
import type { SampleChunk } from '../store/sample-chunk';
import { valueAt } from '../store/sample-stream';
import type { SampleExportColumn } from '../../../shared/export';
import type { GatheredGroup } from './parquet-group';

/** A text column being gathered: each distinct string gets a code once. */
class TextGather {
  dict: string[] = [];
  private index = new Map<string, number>();
  constructor(public codes: Uint32Array) {}

  code(s: string): number {
    let k = this.index.get(s);
    if (k === undefined) {
      k = this.dict.length;
      this.dict.push(s);
      this.index.set(s, k);
    }
    return k;
  }
}

/** One row group being gathered: a Float64Array per numeric column, the text columns (power_kind, device) as codes. */
export class RowGroup {
  private numbers: Float64Array[] = [];
  private texts: TextGather[] = [];
  /** The arrays of a group already written, to gather the next one into (fresh pages cost page faults). */
  private spare: GatheredGroup | null = null;
  private readonly missing: boolean[];
  n = 0;

  constructor(
    private readonly columns: readonly SampleExportColumn[],
    readonly capacity: number,
    /** Columns written REQUIRED (no definition levels): a missing reading in one of them is an error, not a null. */
    private readonly required: ReadonlySet<string> = new Set(),
  ) {
    this.missing = columns.map(() => false);
    this.allocate();
  }

  private allocate(): void {
    const spare = this.spare?.columns;
    this.spare = null;
    const numbers = spare?.flatMap((c) => ('values' in c ? [new Float64Array(c.values.buffer)] : []));
    const codes = spare?.flatMap((c) => ('codes' in c ? [new Uint32Array(c.codes.buffer)] : []));
    let k = 0;
    this.numbers = this.columns.map((c) => (c === 'power_kind' ? new Float64Array(0) : (numbers?.[k++] ?? new Float64Array(this.capacity))));
    this.texts = [...this.columns.filter((c) => c === 'power_kind'), 'device'].map((_, i) => new TextGather(codes?.[i] ?? new Uint32Array(this.capacity)));
    this.missing.fill(false);
    this.n = 0;
  }

  /** Copies rows [from, from + count) of a decoded chunk (count <= capacity - n). */
  add(c: SampleChunk, from: number, count: number): void {
    let text = 0;
    this.columns.forEach((f, k) => {
      if (f === 'power_kind') {
        const out = this.texts[text++]!;
        const kind = c.cols.power_kind;
        if (typeof kind === 'string') out.codes.fill(out.code(kind), this.n, this.n + count);
        else for (let i = 0; i < count; i++) out.codes[this.n + i] = out.code(valueAt(c.cols, f, from + i) as string);
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
    device.codes.fill(device.code(c.device), this.n, this.n + count);
    this.n += count;
  }

  /** Takes back the arrays of a group that has been written (same columns and capacity), for the group after next. */
  recycle(g: GatheredGroup): void {
    this.spare = g;
  }

  /** Hands over the gathered rows (the arrays move out with them) and starts an empty group. */
  take(): GatheredGroup {
    let text = 0;
    const n = this.n;
    const columns: GatheredGroup['columns'] = this.columns.map((name, k) => {
      if (name === 'power_kind') {
        const t = this.texts[text++]!;
        return { name, dict: t.dict, codes: t.codes.subarray(0, n) };
      }
      if (this.missing[k] && this.required.has(name)) throw new Error(`column ${name} has a missing reading, though the block summaries count none`);
      return { name, values: this.numbers[k]!.subarray(0, n), missing: this.missing[k]! };
    });
    const device = this.texts[text]!;
    columns.push({ name: 'device', dict: device.dict, codes: device.codes.subarray(0, n) });
    this.allocate();
    return { n, columns };
  }
}
