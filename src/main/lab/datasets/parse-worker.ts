// Parse thread of a large import: reads one file, parses it with the core parser and posts the columnar batches
// (buffers transferred, not copied) and the raw chunks (for the content hash) to the importing thread, which
// stores them. On two cores, parsing and storing then run at the same time.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { batchBuffers, createParser, ImportError, type ColumnBatch, type StreamParser } from '../../../core/import';
import { MAX_IN_FLIGHT, SHARD_BATCH_ROWS, SHARD_MAX_IN_FLIGHT, DECODE_PIECE_BYTES, pushDecoded, WORKER_BATCH_ROWS, WORKER_CHUNK_BYTES, textEncodingOf, type ParseJob, type ParseMessage, type ShardJob, type SpareMessage } from './parse-protocol';

const job = workerData as ParseJob;
const inFlight = new Int32Array(job.inFlight);
// Two parse threads share the memory budget of one: fewer, smaller messages each.
const maxInFlight = job.shard ? SHARD_MAX_IN_FLIGHT : MAX_IN_FLIGHT;

function post(m: ParseMessage, transfer: ArrayBuffer[] = []): void {
  let n: number;
  // Bounded wait so a terminate() from the importing thread is honoured promptly.
  while ((n = Atomics.load(inFlight, 0)) >= maxInFlight) Atomics.wait(inFlight, 0, n, 200);
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

const spareBatch = () => {
  collectSpares();
  return spareBatches.pop() ?? null;
};

/** A parser whose batches go to the importing thread, each with the devices it names first. */
function postingParser(): StreamParser {
  let devicesSent = 0;
  const parser = createParser(job.format, {
    file: job.path,
    zone: job.zone,
    fields: job.fields,
    interval_s: job.interval_s,
    batchRows: job.shard ? SHARD_BATCH_ROWS : WORKER_BATCH_ROWS,
    spareBatch,
    emit: (batch) => {
      const devices = parser.report.devices.slice(devicesSent);
      devicesSent += devices.length;
      post({ type: 'batch', batch, devices }, batchBuffers(batch));
    },
  });
  return parser;
}

/** The whole file, with its raw chunks for the content hash. */
function parseFile(): void {
  const parser = postingParser();
  const push = (text: string) => parser.push(text);
  const decoder = new StringDecoder(textEncodingOf(job.format));
  const fd = openSync(job.path, 'r');
  try {
    for (;;) {
      collectSpares();
      const buf = spareChunks.pop() ?? Buffer.allocUnsafeSlow(WORKER_CHUNK_BYTES);
      const n = readSync(fd, buf, 0, WORKER_CHUNK_BYTES, null);
      if (n === 0) break;
      const bytes = n === WORKER_CHUNK_BYTES ? buf : buf.subarray(0, n);
      pushDecoded(decoder, bytes, push);
      post({ type: 'chunk', bytes }, [buf.buffer as ArrayBuffer]);
    }
  } finally {
    closeSync(fd);
  }
  parser.push(decoder.end());
  const { report, segments } = parser.end();
  post({ type: 'end', report, segments });
}

/** This thread's chunks of a sharded parse (see ShardJob); the importing thread hashes the file itself. */
function parseShards(shard: ShardJob): void {
  const fd = openSync(job.path, 'r');
  const size = fstatSync(fd).size;
  const buf = Buffer.allocUnsafeSlow(WORKER_CHUNK_BYTES);
  // The last newline search: no newline in [searchFrom, found), and `found` is one (or the end of the file).
  let searchFrom = -1;
  let found = -1;
  const edge = (k: number): number => {
    if (k === 0) return 0;
    const p = k * shard.chunkBytes - 1;
    if (p >= size) return size;
    if (!(searchFrom >= 0 && searchFrom <= p && p <= found)) {
      searchFrom = p;
      found = size;
      for (let at = p; at < size; ) {
        const n = readSync(fd, buf, 0, Math.min(1 << 16, size - at), at);
        const i = buf.subarray(0, n).indexOf(10);
        if (i !== -1) {
          found = at + i;
          break;
        }
        at += n;
      }
    }
    return Math.min(size, found + 1);
  };
  try {
    for (let k = shard.worker; ; k += shard.workers) {
      const a = edge(k);
      if (a >= size) {
        post({ type: 'done', chunk: k });
        return;
      }
      const b = Math.max(a, edge(k + 1));
      const parser = postingParser();
      if (k > 0) parser.push(`${shard.header}\n`);
      const decoder = new StringDecoder(textEncodingOf(job.format));
      let lines = 0;
      for (let at = a; at < b; ) {
        const bytes = buf.subarray(0, readSync(fd, buf, 0, Math.min(DECODE_PIECE_BYTES, b - at), at));
        if (bytes.length === 0) break;
        for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
        parser.push(decoder.write(bytes));
        at += bytes.length;
      }
      parser.push(decoder.end());
      post({ type: 'chunk-end', chunk: k, end_byte: b, lines, report: parser.end().report });
    }
  } finally {
    closeSync(fd);
  }
}

try {
  if (job.shard) parseShards(job.shard);
  else parseFile();
} catch (e) {
  const err = e as Error;
  const import_error =
    err instanceof ImportError ? { file: err.file, line: err.line, reason: err.message.slice(`${err.file}${err.line !== null ? `:${err.line}` : ''}: `.length) } : null;
  parentPort!.postMessage({ type: 'error', import_error, message: err.message } satisfies ParseMessage);
}
