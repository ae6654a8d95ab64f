// Parse thread of a large import: reads one file, parses it with the core parser and posts the columnar batches
// (buffers transferred, not copied) and the raw chunks (for the content hash) to the importing thread, which
// stores them. On two cores, parsing and storing then run at the same time.
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { batchBuffers, createParser, ImportError, type ColumnBatch } from '../../../core/import';
import { MAX_IN_FLIGHT, WORKER_BATCH_ROWS, WORKER_CHUNK_BYTES, textEncodingOf, type ParseJob, type ParseMessage, type SpareMessage } from './parse-protocol';

const job = workerData as ParseJob;
const inFlight = new Int32Array(job.inFlight);

function post(m: ParseMessage, transfer: ArrayBuffer[] = []): void {
  let n: number;
  // Bounded wait so a terminate() from the importing thread is honoured promptly.
  while ((n = Atomics.load(inFlight, 0)) >= MAX_IN_FLIGHT) Atomics.wait(inFlight, 0, n, 200);
  Atomics.add(inFlight, 0, 1);
  parentPort!.postMessage(m, transfer);
}

const spareBatches: ColumnBatch[] = [];
const spareChunks: Buffer[] = [];
/** Takes what the importing thread gave back (this thread never yields to its event loop, so it asks). */
function collectSpares(): void {
  for (let r = receiveMessageOnPort(job.spares); r; r = receiveMessageOnPort(job.spares)) {
    const m = r.message as SpareMessage;
    if (m.type === 'batch') spareBatches.push(m.batch);
    else if (m.bytes.byteLength === WORKER_CHUNK_BYTES) spareChunks.push(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
  }
}

let devicesSent = 0;
try {
  const parser = createParser(job.format, {
    file: job.path,
    zone: job.zone,
    fields: job.fields,
    interval_s: job.interval_s,
    batchRows: WORKER_BATCH_ROWS,
    spareBatch: () => {
      collectSpares();
      return spareBatches.pop() ?? null;
    },
    emit: (batch) => {
      const devices = parser.report.devices.slice(devicesSent);
      devicesSent += devices.length;
      post({ type: 'batch', batch, devices }, batchBuffers(batch));
    },
  });
  const decoder = new StringDecoder(textEncodingOf(job.format));
  const fd = openSync(job.path, 'r');
  try {
    for (;;) {
      collectSpares();
      const buf = spareChunks.pop() ?? Buffer.allocUnsafeSlow(WORKER_CHUNK_BYTES);
      const n = readSync(fd, buf, 0, WORKER_CHUNK_BYTES, null);
      if (n === 0) break;
      const bytes = n === WORKER_CHUNK_BYTES ? buf : buf.subarray(0, n);
      parser.push(decoder.write(bytes));
      post({ type: 'chunk', bytes }, [buf.buffer as ArrayBuffer]);
    }
  } finally {
    closeSync(fd);
  }
  parser.push(decoder.end());
  const { report, segments } = parser.end();
  post({ type: 'end', report, segments });
} catch (e) {
  const err = e as Error;
  const import_error =
    err instanceof ImportError ? { file: err.file, line: err.line, reason: err.message.slice(`${err.file}${err.line !== null ? `:${err.line}` : ''}: `.length) } : null;
  parentPort!.postMessage({ type: 'error', import_error, message: err.message } satisfies ParseMessage);
}
