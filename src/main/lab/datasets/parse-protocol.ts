// What the parse thread of a large import posts to the importing thread, and the flow control between them.
import type { ColumnBatch, StructureSegment } from '../../../core/import';
import type { ImportDevice, ImportFormat, ImportReport } from '../../../shared/dataset';

export interface ParseJob {
  path: string;
  format: ImportFormat;
  zone: string;
  fields?: string[];
  interval_s?: number;
  /** One Int32 slot: messages posted and not yet handled by the importing thread. */
  inFlight: SharedArrayBuffer;
}

export type ParseMessage =
  /** Parsed rows; `devices` are the ones first seen since the previous batch (in report order). */
  | { type: 'batch'; batch: ColumnBatch; devices: ImportDevice[] }
  /** A chunk of the file's bytes, already parsed, for the content hash and progress. */
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'end'; report: ImportReport; segments: StructureSegment[] }
  | { type: 'error'; import_error: { file: string; line: number | null; reason: string } | null; message: string };

/**
 * Messages the parse thread may have in flight: it waits beyond this, so a parser faster than the store never
 * queues the file in memory (a batch is ~3.4 MB, a chunk 2 MiB).
 */
export const MAX_IN_FLIGHT = 8;
/** The parse thread's read size and batch rows: large, so that messages are few (each costs a clone and a wake-up). */
export const WORKER_CHUNK_BYTES = 2 << 20;
export const WORKER_BATCH_ROWS = 32_768;
/** The inline reader's chunk size. */
export const CHUNK_BYTES = 1 << 20;

/** Numeric logs are ASCII: latin1 decodes several times cheaper than UTF-8 and maps every byte, so garbage cannot split a character across chunks. */
export function textEncodingOf(format: ImportFormat): 'latin1' | 'utf8' {
  return format === 'nvidia-smi' || format === 'wattameter' ? 'latin1' : 'utf8';
}
