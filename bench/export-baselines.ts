// The baselines the export bench compares against, measured in the same run.
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import type { Db } from '../src/main/lab/store/db';
import { ALL_SAMPLE_COLUMNS, iterateSampleChunks, valueAt } from '../src/main/lab/store/sample-stream';
import { readSamples, streamsOf } from '../src/main/lab/store/sample-blocks';
import { openAtomicStream } from '../src/main/lab/files/atomic';

/** The store's own row reads (readSamples, the analysis' read path) joined row by row, each stream read whole. */
export async function baselineCsv(db: Db, out: string): Promise<number> {
  const streams = streamsOf(db, { sweep_id: 1 });
  const f = await openAtomicStream(out);
  let n = 0;
  for (const s of streams) {
    const rows = readSamples(db, s.stream_id, -Infinity, Infinity);
    const lines = rows.map((r) => ALL_SAMPLE_COLUMNS.map((c) => r[c] ?? '').join(','));
    for (let i = 0; i < lines.length; i += 8192) if (!f.stream.write(lines.slice(i, i + 8192).join('\n') + '\n')) await new Promise<void>((ok) => f.stream.once('drain', () => ok()));
    n += rows.length;
  }
  await f.commit();
  return n;
}

/** hyparquet-writer used the simple way: every row in memory, one write call (same schema and codec). */
export async function baselineParquet(db: Db, out: string): Promise<number> {
  const names = [...ALL_SAMPLE_COLUMNS, 'device'];
  const cols: (number | string | null)[][] = names.map(() => []);
  for (const c of iterateSampleChunks(db, { sweepId: 1 }, ALL_SAMPLE_COLUMNS)) {
    for (let i = c.a; i < c.b; i++) {
      ALL_SAMPLE_COLUMNS.forEach((f, k) => cols[k]!.push(valueAt(c.cols, f, i)));
      cols[names.length - 1]!.push(c.device);
    }
  }
  const schema = [
    { name: 'root', num_children: names.length },
    ...names.map((name) => (name === 'power_kind' || name === 'device' ? { name, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'REQUIRED' as const } : { name, type: 'DOUBLE' as const, repetition_type: (name === 't' ? 'REQUIRED' : 'OPTIONAL') as 'REQUIRED' | 'OPTIONAL' })),
  ];
  const w = new ParquetWriter({ writer: fileWriter(out), schema, codec: 'SNAPPY', statistics: false });
  await w.write({ columnData: names.map((name, i) => ({ name, data: cols[i]! })), rowGroupSize: 131_072 });
  w.finish();
  return cols[0]!.length;
}

