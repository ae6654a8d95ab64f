// What one import format's module exports: its name, how auto-detection recognises it and how it is read.
import type { ImportFormat } from '../../shared/dataset';
import type { ParserOptions, StreamParser } from './parser';

/** What a file's head is: detectors of one content kind only see heads of that kind. */
export type HeadContent = 'parquet' | 'json' | 'text';

/** A file's head as detectors see it (first 64 KiB decoded as UTF-8, and the file's base name). */
export interface DetectHead {
  head: string;
  name: string;
  /** Non-empty lines, trimmed. */
  lines: string[];
  /** The first line that is not a `#` comment (a format's `#` header counts as a line). */
  first: string;
}

/**
 * One auto-detection rule. Rules of all formats run in ascending `priority` (unique within a content kind); the
 * first that matches names the format, so a broad rule (nvidia-smi's `timestamp,...` header) must come after the
 * narrower ones it would also match (CodeCarbon's, the facility profile's).
 */
export interface DetectRule {
  content: HeadContent;
  priority: number;
  test(h: DetectHead): boolean;
}

/** How a format is read: a streaming text parser, or a reader of its own in the engine (`src/main/lab/datasets`). */
export type FormatReader =
  /** Text pushed in chunks; `encoding` decodes the bytes (latin1 for ASCII-only numeric logs: cheaper, never splits a character). */
  | { kind: 'stream'; parser: (o: ParserOptions) => StreamParser; encoding: 'latin1' | 'utf8'; chunks?: ChunkedParse }
  /** CapLab's own export: becomes a sweep again (`bundle-import.ts`), not part of the dataset. */
  | { kind: 'sweep-bundle' }
  /** Parquet profiles laid end to end with their workload's metadata (`nlr-parquet.ts`, on a worker thread). */
  | { kind: 'parquet-profiles' };

/**
 * A format whose rows stand alone once its header is read can be parsed in chunks on several threads, each chunk's
 * parser reading the header line first; the chunks' reports are then merged in file order.
 */
export interface ChunkedParse {
  /** Whether a file whose first line is `line` can be parsed so. */
  header(line: string): boolean;
  /** The merged warnings of the chunks' reports (in file order), as one parser of the whole file gives them. */
  mergeWarnings(warnings: readonly string[]): string[];
}

export interface FormatModule<F extends ImportFormat = ImportFormat> {
  format: F;
  detect: readonly DetectRule[];
  /** `#` lines that are this format's header rather than comments (for `DetectHead.first`). */
  commentHeader?: RegExp;
  /** Seconds a counter reading's stamp runs after the energy it holds (COUNTER_READ_LAG_S for NVML read by another tool); 0 when absent. */
  counterLagS?: number;
  reader: FormatReader;
}
