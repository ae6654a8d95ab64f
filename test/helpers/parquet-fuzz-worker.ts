// A long-lived thread for the Parquet fuzz suite: reads one mutated file after another with the importer's own
// Parquet reading code (readNlrParquet over hyparquet's file buffer, exactly as src/main/lab/datasets/parquet-worker.ts
// runs it), so 10,000 inputs do not each pay a thread start. A decoder that spins blocks this thread; the fuzz
// suite notices the silence, stops the thread and starts another, as readParquetInWorker does in the importer.
import { parentPort } from 'node:worker_threads';
import { asyncBufferFromFile } from 'hyparquet';
import { ImportError } from '../../src/core/import';
import { readNlrParquet } from '../../src/core/import/formats/nlr-parquet';

export type FuzzJob = { id: number; path: string; file: string };
export type FuzzReply = { id: number; rows: number; rows_read: number } | { id: number; error: string; import_error: boolean };

parentPort!.on('message', (job: FuzzJob) => {
  let rows = 0;
  asyncBufferFromFile(job.path)
    .then((buffer) => readNlrParquet(buffer, { file: job.file, workload: 'w', label: 'w', t0: 0, emit: (b) => (rows += b.n) }))
    .then(
      (r) => parentPort!.postMessage({ id: job.id, rows, rows_read: r.report.rows_read } satisfies FuzzReply),
      (e: Error) => parentPort!.postMessage({ id: job.id, error: e.message, import_error: e instanceof ImportError } satisfies FuzzReply),
    );
});
