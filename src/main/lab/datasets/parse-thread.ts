// Runs one file's parser on a worker thread (parse-worker.ts) and hands its batches, chunks and result to the
// importing thread, which owns the database connection and its open transaction.
import { MessageChannel } from 'node:worker_threads';
import { startLabWorker } from '../lab-worker';
import { batchBuffers, ImportError, type ColumnBatch, type ParseResult } from '../../../core/import';
import type { ImportDevice, ImportFormat } from '../../../shared/dataset';
import type { ParseJob, ParseMessage, SpareMessage } from './parse-protocol';

export interface ParseThreadHandlers {
  onBatch: (batch: ColumnBatch, devices: readonly ImportDevice[]) => void;
  onChunk: (bytes: Uint8Array) => void;
}

/** Parses a file on a worker thread; rejects with the parser's ImportError (file and line), or a handler's error. */
export function parseInWorker(
  file: { path: string; format: ImportFormat },
  opts: { zone: string; fields?: string[]; interval_s?: number },
  h: ParseThreadHandlers,
): Promise<ParseResult> {
  const inFlight = new SharedArrayBuffer(4);
  const counter = new Int32Array(inFlight);
  const { port1: spares, port2 } = new MessageChannel();
  const job: ParseJob = { path: file.path, format: file.format, zone: opts.zone, fields: opts.fields, interval_s: opts.interval_s, inFlight, spares: port2 };
  // Handlers are done with a batch or chunk when they return (the sink copies what it keeps, the hash its input).
  const giveBack = (m: SpareMessage, transfer: ArrayBuffer[]) => spares.postMessage(m, transfer);
  const devices: ImportDevice[] = [];
  return new Promise<ParseResult>((resolve, reject) => {
    // The built entry has this file's extension (.js in the app, .mjs in a bundle).
    const w = startLabWorker(import.meta.url, './parse-worker.ts', `./import-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, { workerData: job, transferList: [port2] });
    let settled = false;
    const settle = (e: Error | null, r?: ParseResult) => {
      if (settled) return;
      settled = true;
      spares.close();
      void w.terminate();
      if (e) reject(e);
      else resolve(r!);
    };
    w.on('message', (m: ParseMessage) => {
      if (settled) return;
      try {
        if (m.type === 'batch') {
          devices.push(...m.devices);
          h.onBatch(m.batch, devices);
          giveBack({ type: 'batch', batch: m.batch }, batchBuffers(m.batch));
        } else if (m.type === 'chunk') {
          h.onChunk(m.bytes);
          giveBack({ type: 'chunk', bytes: m.bytes }, [m.bytes.buffer as ArrayBuffer]);
        }
        else if (m.type === 'end') settle(null, { report: m.report, segments: m.segments });
        else settle(m.import_error ? new ImportError(m.import_error.file, m.import_error.line, m.import_error.reason) : new Error(m.message));
      } catch (e) {
        settle(e as Error);
      } finally {
        Atomics.sub(counter, 0, 1);
        Atomics.notify(counter, 0);
      }
    });
    w.on('error', (e) => settle(e));
    w.on('exit', (code) => settle(new Error(`${file.path}: the import's parse thread stopped (exit code ${code}) before the end of the file`)));
  });
}
