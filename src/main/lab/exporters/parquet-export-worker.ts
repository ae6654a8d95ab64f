// Samples-Parquet export worker thread: encodes and writes the row groups the export gathers and posts (their
// arrays transferred), so that encoding runs beside the export's database reads and decoding.
import { parentPort } from 'node:worker_threads';
import { ParquetFile } from './parquet-file';
import { transferList } from './parquet-group';
import type { ParquetRequest } from './parquet-encoder';

let file: ParquetFile | null = null;

parentPort!.on('message', (m: ParquetRequest) => {
  try {
    if (m.type === 'open') file = new ParquetFile(m.path, m.options);
    else if (m.type === 'group') {
      file!.write(m.group);
      // the arrays go back to be gathered into again
      parentPort!.postMessage({ seq: m.seq, ok: true, group: m.group }, transferList(m.group));
      return;
    } else if (m.type === 'finish') file!.finish();
    else file?.close();
    parentPort!.postMessage({ seq: m.seq, ok: true });
  } catch (e) {
    file?.close();
    parentPort!.postMessage({ seq: m.seq, ok: false, error: (e as Error).message });
  }
});
