/**
 * Throughput adapters read the output of other tools (and CapLab's own protocol) and say how much work was done
 * in how long. Pure functions over text: no Node imports, so the UI, the CLI and the runner share them.
 */

/** What every adapter returns. `rate` is work units per second summed over all GPUs of the run. */
export interface ThroughputResult {
  /** Adapter name that produced this, e.g. `litgpt`. */
  adapter: string;
  /** Work unit: images, tokens, requests, samples. */
  units: string;
  /** Units counted in the measured window; null where the tool reports only a rate. */
  count: number | null;
  /** Length of the measured window in seconds; null where the tool reports only a rate. */
  seconds: number | null;
  rate: number;
  /** Measured window in epoch seconds, where the log carries absolute time; else null. */
  window: { start: number; end: number } | null;
  /** How the window was derived (which records, which clock), above all where it is not absolute (window null). */
  window_derived: string;
  /** Adapter-specific figures (latencies, per-GPU rate, rows, warnings). */
  details: Record<string, unknown>;
}

export interface AdapterOptions {
  /** File name used in error messages. */
  file?: string;
  /** Leading records (steps, epochs, rows) to drop as warm-up; each adapter has its own default. */
  skip?: number;
  /** The regex adapter's pattern (named groups units, seconds, rate, t). */
  pattern?: string;
  /** Overrides the unit name the adapter reports. */
  units?: string;
}

export interface ThroughputAdapter {
  name: string;
  title: string;
  /** Unit the tool counts in, unless the options or the content say otherwise. */
  defaultUnits: string;
  /** What `skip` defaults to and what it counts. */
  defaultSkip: number;
  skipCounts: string;
  /** How sure the adapter is that it reads this text, 0 (not at all) to 1. */
  detect(text: string): number;
  read(text: string, opts: AdapterOptions): ThroughputResult;
}

/** Bad input: the message names the file and, where it can, the line. */
export class AdapterError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number | null = null,
  ) {
    super(`${file}${line != null ? `:${line}` : ''}: ${message}`);
    this.name = 'AdapterError';
  }
}

export function fileName(opts: AdapterOptions): string {
  return opts.file ?? '<input>';
}

/** Lines without their terminators (LF or CRLF). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** The first line of a text (without terminator). */
export function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return (nl < 0 ? text : text.slice(0, nl)).replace(/\r$/, '').replace(/^\uFEFF/, '');
}

/** A decimal number, or null when the text is not one. */
export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** A short, printable excerpt of a line for error messages. */
export function excerpt(line: string, max = 80): string {
  const clean = line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

export interface CsvTable {
  header: string[];
  /** Data rows with their 1-based line numbers in the file. */
  rows: { line: number; cells: string[] }[];
}

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF). Rows of the wrong width are errors naming the line. */
export function parseCsv(text: string, file: string): CsvTable {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let atCellStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"' && atCellStart) {
      quoted = true;
      atCellStart = false;
    } else if (c === ',') {
      cells.push(cell);
      cell = '';
      atCellStart = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      if (!(cells.length === 1 && cells[0] === '')) records.push({ line: recordLine, cells });
      cells = [];
      cell = '';
      atCellStart = true;
      line++;
      recordLine = line;
    } else {
      cell += c;
      atCellStart = false;
    }
  }
  if (quoted) throw new AdapterError('unterminated quoted field', file, recordLine);
  if (cell !== '' || cells.length) {
    cells.push(cell);
    records.push({ line: recordLine, cells });
  }
  const first = records.shift();
  if (!first) throw new AdapterError('empty CSV file (no header)', file, 1);
  const header = first.cells.map((h, i) => (i === 0 ? h.replace(/^\uFEFF/, '') : h).trim());
  for (const r of records) {
    if (r.cells.length !== header.length) {
      throw new AdapterError(`expected ${header.length} columns as in the header, found ${r.cells.length}`, file, r.line);
    }
  }
  return { header, rows: records };
}

export function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

export function std(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
}

/** Rounds for printing without losing the figures a test compares. */
export function round(x: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
