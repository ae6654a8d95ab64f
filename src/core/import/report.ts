// The import report every parser fills in: rows read and skipped (with reasons and first lines), devices,
// time span, and the sensor kind of each power column.
import type { ImportReport, ImportDevice, ColumnInfo } from '../../shared/dataset';

/** Line numbers kept per skip reason. */
export const MAX_SKIP_EXAMPLES = 5;

export class ReportBuilder {
  readonly r: ImportReport;
  private readonly deviceIndex = new Map<string, number>();

  constructor(format: string, file: string) {
    this.r = {
      format,
      files: [file],
      rows_read: 0,
      rows_skipped: 0,
      skipped: [],
      devices: [],
      columns: [],
      t_start: null,
      t_end: null,
      warnings: [],
      clock: 'wall',
    };
  }

  /** Index of a device by its key, adding it on first sight. */
  private readonly lastT: number[] = [];

  device(key: string, init: Omit<ImportDevice, 'key' | 'rows' | 'max_gap_s'>): number {
    let i = this.deviceIndex.get(key);
    if (i === undefined) {
      i = this.r.devices.length;
      this.r.devices.push({ key, rows: 0, max_gap_s: 0, ...init });
      this.lastT.push(NaN);
      this.deviceIndex.set(key, i);
    }
    return i;
  }

  column(c: ColumnInfo): void {
    if (!this.r.columns.some((x) => x.source === c.source)) this.r.columns.push(c);
  }

  read(t: number, device: number): void {
    this.r.rows_read++;
    const d = this.r.devices[device]!;
    d.rows++;
    const gap = t - this.lastT[device]!;
    if (gap > d.max_gap_s) d.max_gap_s = gap;
    this.lastT[device] = t;
    if (this.r.t_start === null || t < this.r.t_start) this.r.t_start = t;
    if (this.r.t_end === null || t > this.r.t_end) this.r.t_end = t;
  }

  skip(line: number, reason: string): void {
    this.r.rows_skipped++;
    const s = this.r.skipped.find((x) => x.reason === reason);
    if (s) {
      s.count++;
      if (s.lines.length < MAX_SKIP_EXAMPLES) s.lines.push(line);
    } else this.r.skipped.push({ reason, count: 1, lines: [line] });
  }

  warn(w: string): void {
    if (!this.r.warnings.includes(w)) this.r.warnings.push(w);
  }
}

/** A file the parser cannot read at all: names the file and line. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
  ) {
    super(`${file}${line !== null ? `:${line}` : ''}: ${message}`);
    this.name = 'ImportError';
  }
}
