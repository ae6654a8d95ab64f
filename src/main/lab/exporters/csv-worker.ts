// Samples-CSV export worker thread: decodes and formats the batches of blocks the export posts, and posts the bytes
// back (transferred, not copied).
import { parentPort } from 'node:worker_threads';
import { formatCsvJob, type CsvJob } from './csv-rows';

parentPort!.on('message', (m: { seq: number; job: CsvJob }) => {
  try {
    const r = formatCsvJob(m.job);
    parentPort!.postMessage({ seq: m.seq, ok: true, bytes: r.bytes, rows: r.rows }, [r.bytes.buffer as ArrayBuffer]);
  } catch (e) {
    parentPort!.postMessage({ seq: m.seq, ok: false, error: (e as Error).message });
  }
});
