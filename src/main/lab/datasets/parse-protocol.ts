// What the parse thread of a large import posts to the importing thread, and the flow control between them.
import { formatModule, type ColumnBatch, type StructureSegment } from '../../../core/import';
import type { StringDecoder } from 'node:string_decoder';
import type { MessagePort } from 'node:worker_threads';
import type { ImportDevice, ImportFormat, ImportReport } from '../../../shared/dataset';

export interface ParseJob {
  path: string;
  format: ImportFormat;
  zone: string;
  fields?: string[];
  interval_s?: number;
  /** One Int32 slot: messages posted and not yet handled by the importing thread. */
  inFlight: SharedArrayBuffer;
  /** Where the importing thread hands back what it is done with, for the parse thread to fill again. */
  spares: MessagePort;
  /** Set when several threads parse the file: this one parses chunks `worker`, `worker + workers`, ... */
  shard?: ShardJob;
}

/**
 * Chunk k of a sharded parse is the file's bytes from just after the first newline at or after k * chunkBytes - 1
 * (0 for k = 0) to the start of chunk k + 1: every thread finds the same edges on its own. A chunk after the first is
 * parsed by a fresh parser that first reads the file's header line (`header`), so it is set up as the first.
 */
export interface ShardJob {
  worker: number;
  workers: number;
  chunkBytes: number;
  header: string;
}

/**
 * A batch stored, or a chunk hashed, given back (buffers transferred): reusing them spares both threads the
 * allocation of ~3 MB a batch and the garbage collections that external memory churn sets off.
 */
export type SpareMessage = { type: 'batch'; batch: ColumnBatch } | { type: 'chunk'; bytes: Uint8Array };

export type ParseMessage =
  /** Parsed rows; `devices` are the ones first seen since the previous batch (in report order). */
  | { type: 'batch'; batch: ColumnBatch; devices: ImportDevice[] }
  /** A chunk of the file's bytes, already parsed, for the content hash and progress. */
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'end'; report: ImportReport; segments: StructureSegment[] }
  /** Sharded parse: chunk `chunk` (bytes up to `end_byte`, `lines` newlines) is parsed; its report counts its rows only. */
  | { type: 'chunk-end'; chunk: number; end_byte: number; lines: number; report: ImportReport }
  /** Sharded parse: chunk `chunk` starts at the end of the file, so this thread has no more. */
  | { type: 'done'; chunk: number }
  | { type: 'error'; import_error: { file: string; line: number | null; reason: string } | null; message: string };

/**
 * Messages the parse thread may have in flight: it waits beyond this, so a parser faster than the store never
 * queues the file in memory (a batch is ~3.4 MB, a chunk 2 MiB).
 */
export const MAX_IN_FLIGHT = 8;
/** The parse thread's read size and batch rows: large, so that messages are few (each costs a clone and a wake-up). */
export const WORKER_CHUNK_BYTES = 2 << 20;
export const WORKER_BATCH_ROWS = 32_768;
/** A sharded parse's batch rows and messages in flight per thread (two threads, one memory budget). */
export const SHARD_BATCH_ROWS = 16_384;
export const SHARD_MAX_IN_FLIGHT = 4;
/**
 * Bytes are decoded to text in pieces of this size: under Node's ~1 MB threshold for external strings. Each larger
 * piece becomes a malloc'ed string, fresh pages every time: latin1 decoding of 276 MB took 0.44-0.53 CPU-s in 1-2 MiB
 * pieces and 0.085-0.092 in 64 KiB ones (the text then scanned as fast); sharded parses also left such memory to
 * linger (peak RSS 325 MB with 2 MiB pieces, 221-242 MB with 64-256 KiB).
 */
export const DECODE_PIECE_BYTES = 64 << 10;

/** Pushes `bytes` decoded, in pieces of DECODE_PIECE_BYTES (a decoder keeps a character split between pieces whole). */
export function pushDecoded(decoder: StringDecoder, bytes: Buffer, push: (text: string) => void): void {
  for (let at = 0; at < bytes.length; at += DECODE_PIECE_BYTES) push(decoder.write(bytes.subarray(at, Math.min(bytes.length, at + DECODE_PIECE_BYTES))));
}
/** The inline reader's chunk size. */
export const CHUNK_BYTES = 1 << 20;

/** How a streamed format's bytes are decoded (its module says: latin1 for ASCII-only numeric logs). */
export function textEncodingOf(format: ImportFormat): 'latin1' | 'utf8' {
  const reader = formatModule(format).reader;
  return reader.kind === 'stream' ? reader.encoding : 'utf8';
}
