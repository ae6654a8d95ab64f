// Runs parquet-worker.ts for one results file and relays its messages; a decoder that makes no progress for
// `stall_ms` (a corrupt page) is stopped and the file refused, so an import never hangs on a bad Parquet file.
import { startLabWorker } from '../process/lab-worker';
import { ImportError, type ColumnBatch, type ParseResult } from '../../../core/import';
import type { ImportReport } from '../../../shared/dataset';

export interface ParquetJob {
  path: string;
  /** The name used in reports and errors (a zip member's `archive.zip/inner/path`). */
  file: string;
  workload: string;
  label: string;
  t0: number;
}

export type ParquetMessage =
  | { type: 'batch'; batch: ColumnBatch }
  | { type: 'report'; report: ImportReport }
  | { type: 'progress'; fraction: number }
  | { type: 'end'; result: ParseResult }
  /** `message`: the reason alone for an ImportError (file and line apart), else the error's message. */
  | { type: 'error'; message: string; import_error: { file: string; line: number | null } | null };

/** Default: far longer than any row group takes to decode, short enough that a stuck import is noticed. */
export const PARQUET_STALL_MS = 30_000;

export function readParquetInWorker(
  job: ParquetJob,
  h: { onBatch: (b: ColumnBatch, report: ImportReport) => void; onFraction: (x: number) => void },
  stall_ms = PARQUET_STALL_MS,
): Promise<ParseResult> {
  return new Promise((resolve, reject) => {
    const w = startLabWorker(import.meta.url, './parquet-worker.ts', './parquet-worker.js', { workerData: job });
    let report: ImportReport | null = null;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (e: Error | null, r?: ParseResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void w.terminate();
      if (e) reject(e);
      else resolve(r!);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => settle(new ImportError(job.file, null, `the Parquet decoder made no progress for ${stall_ms / 1000} s: a corrupt page?`)), stall_ms);
    };
    arm();
    w.on('message', (m: ParquetMessage) => {
      if (settled) return;
      arm();
      try {
        if (m.type === 'report') report = m.report;
        else if (m.type === 'batch') h.onBatch(m.batch, report!);
        else if (m.type === 'progress') h.onFraction(m.fraction);
        else if (m.type === 'end') settle(null, m.result);
        else settle(m.import_error ? new ImportError(m.import_error.file, m.import_error.line, m.message) : new Error(`${job.file}: ${m.message}`));
      } catch (e) {
        settle(e as Error);
      }
    });
    w.on('error', (e) => settle(new ImportError(job.file, null, `unreadable Parquet: ${e.message}`)));
    w.on('exit', (code) => settle(new ImportError(job.file, null, `the Parquet reading thread stopped (exit code ${code}) before the end of the file`)));
  });
}
