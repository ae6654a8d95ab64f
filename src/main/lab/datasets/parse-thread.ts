// Runs a file's parser on worker threads (parse-worker.ts) and hands its batches, chunks and result to the
// importing thread, which owns the database connection and its open transaction. One thread parses the whole file;
// or, for formats whose rows stand alone (nvidia-smi logs with a header), two threads parse alternate chunks and
// this thread stores them in file order and merges the chunks' reports into the one a single parser gives.
import { closeSync, openSync, readSync } from 'node:fs';
import { MessageChannel, type Worker } from 'node:worker_threads';
import { startLabWorker } from '../process/lab-worker';
import { batchBuffers, formatModule, ImportError, type ColumnBatch, type ParseResult } from '../../../core/import';
import { ReportBuilder, MAX_SKIP_EXAMPLES } from '../../../core/import/report';
import type { ImportDevice, ImportFormat, ImportReport } from '../../../shared/dataset';
import { WORKER_CHUNK_BYTES, type ParseJob, type ParseMessage, type ShardJob, type SpareMessage } from './parse-protocol';

export interface ParseThreadHandlers {
  onBatch: (batch: ColumnBatch, devices: readonly ImportDevice[]) => void;
  onChunk: (bytes: Uint8Array) => void;
}

type ParseOpts = { zone: string; fields?: string[]; interval_s?: number };

/** One parse thread: its messages go to `onMessage`; `handled` tells the thread one more is dealt with. */
function startParseThread(file: { path: string; format: ImportFormat }, opts: ParseOpts, shard: ShardJob | undefined, onMessage: (m: ParseMessage) => void) {
  const inFlight = new SharedArrayBuffer(4);
  const counter = new Int32Array(inFlight);
  const { port1: spares, port2 } = new MessageChannel();
  const job: ParseJob = { path: file.path, format: file.format, zone: opts.zone, fields: opts.fields, interval_s: opts.interval_s, inFlight, spares: port2, shard };
  // The built entry has this file's extension (.js in the app, .mjs in a bundle).
  const worker: Worker = startLabWorker(import.meta.url, './parse-worker.ts', `./import-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, { workerData: job, transferList: [port2] });
  worker.on('message', onMessage);
  return {
    worker,
    handled(): void {
      Atomics.sub(counter, 0, 1);
      Atomics.notify(counter, 0);
    },
    // Handlers are done with a batch or chunk when they return (the sink copies what it keeps, the hash its input).
    giveBack(m: SpareMessage): void {
      spares.postMessage(m, m.type === 'batch' ? batchBuffers(m.batch) : [m.bytes.buffer as ArrayBuffer]);
    },
    stop(): void {
      spares.close();
      void worker.terminate();
    },
  };
}

function errorOf(m: Extract<ParseMessage, { type: 'error' }>, lineOffset = 0): Error {
  const e = m.import_error;
  return e ? new ImportError(e.file, e.line === null ? null : e.line + lineOffset, e.reason) : new Error(m.message);
}

/** Settles once: the first outcome wins, and every thread is stopped. */
function settler(resolve: (r: ParseResult) => void, reject: (e: Error) => void, stop: () => void) {
  let settled = false;
  return {
    get settled() {
      return settled;
    },
    settle(e: Error | null, r?: ParseResult): void {
      if (settled) return;
      settled = true;
      stop();
      if (e) reject(e);
      else resolve(r!);
    },
  };
}

/** Parses a file on a worker thread; rejects with the parser's ImportError (file and line), or a handler's error. */
export function parseInWorker(file: { path: string; format: ImportFormat }, opts: ParseOpts, h: ParseThreadHandlers): Promise<ParseResult> {
  const devices: ImportDevice[] = [];
  return new Promise<ParseResult>((resolve, reject) => {
    const t = startParseThread(file, opts, undefined, (m) => {
      if (s.settled) return;
      try {
        if (m.type === 'batch') {
          devices.push(...m.devices);
          h.onBatch(m.batch, devices);
          t.giveBack({ type: 'batch', batch: m.batch });
        } else if (m.type === 'chunk') {
          h.onChunk(m.bytes);
          t.giveBack({ type: 'chunk', bytes: m.bytes });
        } else if (m.type === 'end') s.settle(null, { report: m.report, segments: m.segments });
        else if (m.type === 'error') s.settle(errorOf(m));
      } catch (e) {
        s.settle(e as Error);
      } finally {
        t.handled();
      }
    });
    const s = settler(resolve, reject, () => t.stop());
    t.worker.on('error', (e) => s.settle(e));
    t.worker.on('exit', (code) => s.settle(new Error(`${file.path}: the import's parse thread stopped (exit code ${code}) before the end of the file`)));
  });
}

/** Chunk size of a sharded parse: a few batches each, so the two threads stay close to each other in the file. */
export const SHARD_CHUNK_BYTES = 8 << 20;

/**
 * Parses a file on two worker threads, alternate chunks each (`header`: the file's first line, which sets up every
 * chunk's parser). Batches are handed on in file order with the devices renumbered to the whole file's; rows read,
 * devices and the time span are counted here from the batches, skipped lines and warnings merged from the chunks'
 * reports, so the result is the report of one parser over the whole file. This thread hashes the file itself.
 */
export function parseInShards(file: { path: string; format: ImportFormat }, opts: ParseOpts & { header: string; chunkBytes?: number }, h: ParseThreadHandlers): Promise<ParseResult> {
  const workers = 2;
  const rep = new ReportBuilder(file.format, file.path);
  const warnings: string[] = [];
  const queues: ParseMessage[][] = Array.from({ length: workers }, () => []);
  const finished: boolean[] = Array.from({ length: workers }, () => false);
  let chunk = 0;
  let linesBefore = 0;
  let toGlobal: number[] = [];
  const fd = openSync(file.path, 'r');
  const hashBuf = Buffer.allocUnsafeSlow(WORKER_CHUNK_BYTES);
  let hashed = 0;
  const hashTo = (end: number) => {
    while (hashed < end) {
      const n = readSync(fd, hashBuf, 0, Math.min(hashBuf.length, end - hashed), hashed);
      if (n === 0) break;
      h.onChunk(hashBuf.subarray(0, n));
      hashed += n;
    }
  };
  const hashRest = () => {
    for (let n = 1; n > 0; ) {
      n = readSync(fd, hashBuf, 0, hashBuf.length, hashed);
      if (n > 0) h.onChunk(hashBuf.subarray(0, n));
      hashed += n;
    }
  };
  // Lines of chunk k > 0 count from its parser's replayed header line.
  const lineOf = (local: number) => local - (chunk > 0 ? 1 : 0) + linesBefore;

  const onBatch = (batch: ColumnBatch, devices: ImportDevice[]) => {
    for (const { key, rows: _rows, max_gap_s: _gap, ...init } of devices) toGlobal.push(rep.device(key, init));
    const dev = batch.device;
    for (let i = 0; i < batch.n; i++) {
      const g = toGlobal[dev[i]!]!;
      dev[i] = g;
      rep.read(batch.t[i]!, g);
    }
    h.onBatch(batch, rep.r.devices);
  };
  const onChunkEnd = (r: ImportReport, endByte: number, lines: number) => {
    for (const c of r.columns) rep.column(c);
    for (const sk of r.skipped) {
      let into = rep.r.skipped.find((x) => x.reason === sk.reason);
      if (!into) {
        into = { reason: sk.reason, count: 0, lines: [] };
        rep.r.skipped.push(into);
      }
      into.count += sk.count;
      for (const line of sk.lines) if (into.lines.length < MAX_SKIP_EXAMPLES) into.lines.push(lineOf(line));
      rep.r.rows_skipped += sk.count;
    }
    warnings.push(...r.warnings);
    for (const line of r.reordered.lines) if (rep.r.reordered.lines.length < MAX_SKIP_EXAMPLES) rep.r.reordered.lines.push(lineOf(line));
    hashTo(endByte);
    linesBefore += lines;
    chunk++;
    toGlobal = [];
  };

  return new Promise<ParseResult>((resolve, reject) => {
    const threads = Array.from({ length: workers }, (_, worker) =>
      startParseThread(file, opts, { worker, workers, chunkBytes: opts.chunkBytes ?? SHARD_CHUNK_BYTES, header: opts.header }, (m) => {
        if (s.settled) return;
        if (m.type === 'done' || m.type === 'error') finished[worker] = true;
        queues[worker]!.push(m);
        pump();
      }),
    );
    const s = settler(resolve, reject, () => {
      for (const t of threads) t.stop();
      closeSync(fd);
    });
    // Messages are handled in file order: those of the thread whose chunk is next; the other's wait (and that
    // thread stops posting at its in-flight limit).
    const pump = () => {
      for (;;) {
        const at = chunk % workers;
        const m = queues[at]!.shift();
        if (!m || s.settled) return;
        const t = threads[at]!;
        try {
          if (m.type === 'batch') {
            onBatch(m.batch, m.devices);
            t.giveBack({ type: 'batch', batch: m.batch });
          } else if (m.type === 'chunk-end') onChunkEnd(m.report, m.end_byte, m.lines);
          else if (m.type === 'done') {
            hashRest();
            const reader = formatModule(file.format).reader;
            rep.r.warnings = reader.kind === 'stream' && reader.chunks ? reader.chunks.mergeWarnings(warnings) : warnings;
            s.settle(null, { report: rep.r, segments: [] });
          } else if (m.type === 'error') s.settle(errorOf(m, chunk > 0 ? linesBefore - 1 : 0));
          else s.settle(new Error(`${file.path}: unexpected message ${m.type} from a parse thread`));
        } catch (e) {
          s.settle(e as Error);
        } finally {
          t.handled();
        }
      }
    };
    threads.forEach((t, worker) => {
      t.worker.on('error', (e) => s.settle(e));
      // A thread that has posted its last message ends while its messages may still wait here.
      t.worker.on('exit', (code) => {
        if (!finished[worker]) s.settle(new Error(`${file.path}: the import's parse thread stopped (exit code ${code}) before the end of the file`));
      });
    });
  });
}
