// Columnar batches: what every importer emits. One row = one reading of one device at one time; a missing value
// is NaN. Channels are the sample column spec's numeric fields, with power split by sensor kind.

export const CHANNELS = [
  'power_instant_w',
  'power_avg_w',
  /** Power derived from an energy-counter delta (sensor kind 'counter'). */
  'power_derived_w',
  'energy_mj',
  'sm_clock_mhz',
  'mem_clock_mhz',
  'temp_c',
  'util_gpu',
  'util_mem',
  'mem_used_mb',
  'limit_w',
] as const;
export type Channel = (typeof CHANNELS)[number];

export interface ColumnBatch {
  n: number;
  /** Seconds since the epoch (or since the log's start where the format has no wall clock). */
  t: Float64Array;
  /** Index into the import report's device list. */
  device: Int32Array;
  cols: Record<Channel, Float64Array>;
}

export const DEFAULT_BATCH_ROWS = 32_768;

/** Fills fixed-size typed arrays row by row and hands each full batch to `emit` (which may keep it). */
/** A channel's position in CHANNELS: parsers resolve their columns to these once, so the hot loop indexes an array. */
export const channelIndex = (ch: Channel): number => CHANNELS.indexOf(ch);

export class BatchBuilder {
  private b: ColumnBatch;
  /** The current batch's channel arrays in CHANNELS order (a keyed lookup per value would be megamorphic). */
  private byIndex: Float64Array[];
  readonly rows: number;
  total = 0;

  constructor(
    private readonly emit: (batch: ColumnBatch) => void,
    rows = DEFAULT_BATCH_ROWS,
    /** A spent batch to fill again instead of allocating (the parse thread gets its batches back once stored). */
    private readonly spare: () => ColumnBatch | null = () => null,
  ) {
    this.rows = rows;
    this.b = this.next();
    this.byIndex = CHANNELS.map((c) => this.b.cols[c]);
  }

  /** One ArrayBuffer holds the whole batch: a thread hands it over as one transfer (each buffer transferred costs). */
  static alloc(rows: number): ColumnBatch {
    const buf = new ArrayBuffer(rows * (8 * (CHANNELS.length + 1) + 4));
    const cols = {} as Record<Channel, Float64Array>;
    CHANNELS.forEach((c, k) => (cols[c] = new Float64Array(buf, rows * 8 * (k + 1), rows).fill(NaN)));
    return { n: 0, t: new Float64Array(buf, 0, rows), device: new Int32Array(buf, rows * 8 * (CHANNELS.length + 1), rows), cols };
  }

  private next(): ColumnBatch {
    const b = this.spare();
    if (!b || b.t.length !== this.rows) return BatchBuilder.alloc(this.rows);
    b.n = 0;
    for (const c of CHANNELS) b.cols[c].fill(NaN);
    return b;
  }

  /** Starts a row and returns its index in the current batch; the caller sets channels through `set`. */
  row(t: number, device: number): number {
    if (this.b.n === this.rows) this.flush();
    const i = this.b.n++;
    this.b.t[i] = t;
    this.b.device[i] = device;
    this.total++;
    return i;
  }

  set(i: number, ch: Channel, v: number): void {
    this.b.cols[ch][i] = v;
  }

  /** set() by channel index (channelIndex), for the per-value hot loops. */
  setAt(i: number, ch: number, v: number): void {
    this.byIndex[ch]![i] = v;
  }

  /** The current batch's channel columns in CHANNELS order (row i of the last row() call is in these). */
  columns(): readonly Float64Array[] {
    return this.byIndex;
  }

  /** Drops the row just started (a line that turned out to be bad after all). */
  undo(): void {
    const i = --this.b.n;
    for (const c of CHANNELS) this.b.cols[c][i] = NaN;
    this.total--;
  }

  flush(): void {
    if (this.b.n === 0) return;
    const full = this.b;
    this.b = this.next();
    this.byIndex = CHANNELS.map((c) => this.b.cols[c]);
    this.emit(full);
  }
}

/** The buffers behind a batch, each once: the transfer list for posting it to another thread. */
export function batchBuffers(b: ColumnBatch): ArrayBuffer[] {
  return [...new Set([b.t.buffer, b.device.buffer, ...Object.values(b.cols).map((c) => c.buffer)])] as ArrayBuffer[];
}
