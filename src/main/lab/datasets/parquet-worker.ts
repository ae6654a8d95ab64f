// The Parquet reading thread: decodes one NLR profile row group by row group and posts its batches, progress and
// result to the importing thread. On its own thread because a corrupt page can make the decoder spin without end
// (the fuzz suite found RLE runs that never finish); the importing thread stops it when it makes no progress.
import { parentPort, workerData } from 'node:worker_threads';
import { asyncBufferFromFile } from 'hyparquet';
import { batchBuffers, ImportError } from '../../../core/import';
import { readNlrParquet } from '../../../core/import/formats/nlr-parquet';
import type { ParquetJob, ParquetMessage } from './parquet-thread';

const job = workerData as ParquetJob;
const post = (m: ParquetMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

asyncBufferFromFile(job.path)
  .then((buffer) =>
    readNlrParquet(buffer, {
      file: job.file,
      workload: job.workload,
      label: job.label,
      t0: job.t0,
      emit: (batch) => post({ type: 'batch', batch }, batchBuffers(batch)),
      onReport: (report) => post({ type: 'report', report }),
      onFraction: (fraction) => post({ type: 'progress', fraction }),
    }),
  )
  .then(
  (result) => post({ type: 'end', result }),
  (e: Error) =>
    post({
      type: 'error',
      message: e instanceof ImportError ? e.message.slice(`${e.file}${e.line !== null ? `:${e.line}` : ''}: `.length) : e.message,
      import_error: e instanceof ImportError ? { file: e.file, line: e.line } : null,
    }),
);
