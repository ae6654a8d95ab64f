// The contract of every importer: a pure streaming parser fed decoded text chunks, emitting columnar batches
// and returning its import report at the end. File I/O, hashing and storage live in src/main/lab/datasets.
import type { ImportReport } from '../../shared/dataset';
import type { ColumnBatch } from './batch';

export interface ParserOptions {
  /** File name used in reports and errors. */
  file: string;
  /** IANA zone for timestamps without one. */
  zone: string;
  emit: (batch: ColumnBatch) => void;
  batchRows?: number;
  /** A spent batch (emitted earlier, no longer used by the receiver) to fill again, or null to allocate one. */
  spareBatch?: () => ColumnBatch | null;
  /** Field list for headerless logs (`nvidia-smi --format=csv,noheader`): the --query-gpu list. */
  fields?: string[];
  /** Sampling interval of logs without timestamps (dcgmi dmon --delay), s. */
  interval_s?: number;
}

/** A segment the file's own structure gives (a named window, a per-cap directory, a run). */
export interface StructureSegment {
  name: string;
  start: number;
  end: number;
  cap_w?: number | null;
  workload?: string | null;
  energy_j?: number | null;
}

export interface ParseResult {
  report: ImportReport;
  segments: StructureSegment[];
}

export interface StreamParser {
  /** The report as filled so far: devices are registered before any batch names them. */
  readonly report: ImportReport;
  push(text: string): void;
  end(): ParseResult;
}

/** The StreamParser of a text source (lines or a CSV table): push feeds it, end flushes the last batch, then `finish` checks and returns segments. */
export function textStream(
  report: ImportReport,
  source: { push(text: string): void; end(): void },
  flush: () => void,
  finish: () => StructureSegment[] = () => [],
): StreamParser {
  return {
    report,
    push: (text) => source.push(text),
    end: () => {
      source.end();
      flush();
      return { report, segments: finish() };
    },
  };
}
