// The import report every parser fills in: rows read and skipped (with reasons and first lines), devices,
// time span, and the sensor kind of each power column.
import type { ImportReport, ImportDevice, ColumnInfo } from '../../shared/dataset';
import type { BatchBuilder } from './batch';
import { rowProblem } from './plausible';
import { cutText as cut } from '../../shared/format';

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
      reordered: { count: 0, lines: [] },
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

  /** Counts a reading (line: where it is, when the caller knows). */
  read(t: number, device: number, line: number | null = null): void {
    this.r.rows_read++;
    const d = this.r.devices[device]!;
    d.rows++;
    const gap = t - this.lastT[device]!;
    if (gap > d.max_gap_s) d.max_gap_s = gap;
    else if (gap < 0) {
      const o = this.r.reordered;
      o.count++;
      if (line !== null && o.lines.length < MAX_SKIP_EXAMPLES) o.lines.push(line);
    }
    this.lastT[device] = t;
    if (this.r.t_start === null || t < this.r.t_start) this.r.t_start = t;
    if (this.r.t_end === null || t > this.r.t_end) this.r.t_end = t;
  }

  /**
   * Row i of `out` (just filled, at line `line`) is counted as read, or dropped: a physically impossible reading is
   * skipped with its reason; a timestamp or value the store cannot hold fails the file at that line (`where` names
   * the place in a file without lines). False when dropped.
   */
  commit(out: BatchBuilder, i: number, line: number | null, t: number, device: number, where?: string): boolean {
    const p = rowProblem(t, out.columns(), i, this.r.devices[device]!.kind, this.r.clock);
    if (p === null) {
      this.read(t, device, line);
      return true;
    }
    out.undo();
    if (p.fatal) throw new ImportError(this.r.files[0]!, where ? null : line, where ? `${where}: ${p.message}` : p.message);
    this.skip(line ?? 0, p.reason);
    return false;
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

/** The skipped rows in words: each reason with its count and first lines (for messages; each reason cut short). */
export function skippedWords(r: ImportReport): string {
  return r.skipped.map((s) => `${cut(s.reason, 200)}: ${s.count} (line${s.lines.length > 1 ? 's' : ''} ${s.lines.join(', ')}${s.count > s.lines.length ? ', ...' : ''})`).join('; ');
}

/** Why a file gave no reading, for the import's refusal: what was skipped, else that it holds no rows. */
export function noSampleReason(r: ImportReport): string {
  const notes = r.warnings.length ? `; ${r.warnings.map((w) => cut(w, 200)).join('; ')}` : '';
  if (r.rows_skipped > 0) return `no reading to import: every row was skipped (${skippedWords(r)})${notes}`;
  return `no reading to import: no data rows${notes}`;
}

/**
 * What a parser that found no header says at the end: "empty file" only when nothing was skipped; a file of one
 * line too long to read (a 200 MB line) is not empty.
 */
export function noHeaderReason(rep: ReportBuilder, expected: string): string {
  return rep.r.rows_skipped > 0 ? `${expected} (${skippedWords(rep.r)})` : `empty file: ${expected}`;
}

/** The warning for readings out of time order, or null: they are stored sorted, so the file's order is lost. */
export function reorderWarning(r: ImportReport): string | null {
  const o = r.reordered;
  if (o.count === 0) return null;
  const at = o.lines.length ? ` (line${o.lines.length > 1 ? 's' : ''} ${o.lines.join(', ')}${o.count > o.lines.length ? ', ...' : ''})` : '';
  return `${o.count} reading(s) go back in time from their device's previous one${at}: they are stored in time order`;
}

/**
 * What a user can give to read a file that failed: its format (no importer recognised it) or the field list of a
 * headerless log. The import preview turns it into an action on the page; the CLI's message names the flag.
 */
export type ImportNeed = 'format' | 'fields';

/** A file the parser cannot read at all: names the file and line. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    /** The reason alone, without file and line. */
    readonly reason: string,
    readonly need: ImportNeed | null = null,
  ) {
    super(`${file}${line !== null ? `:${line}` : ''}: ${reason}`);
    this.name = 'ImportError';
  }
}
