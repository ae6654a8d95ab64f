// Large files are parsed on a worker thread while the importing thread stores: the dataset, its report, its
// content hash and every stored sample must be the same as when the file is parsed inline, and a parse error must
// name the same file and line. Real files, real SQLite databases, a real worker thread.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPaths } from '../../src/main/lab/datasets/importer';
import { openDb, type Db } from '../../src/main/lab/store/db';
import { readWindow, streamsOf } from '../../src/main/lab/store/sample-blocks';
import { nvidiaSmiLog, wattameterLog } from '../../bench/gen-power-logs';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir('caplab-parse-thread-');
afterAll(() => tmp.cleanup());
let n = 0;

async function importWith(file: string, thread: 'worker' | 'inline'): Promise<{ db: Db; id: number }> {
  const db = openDb(join(tmp.dir, `lab-${++n}.db`));
  const out = await importPaths(db, [file], { format: 'auto', zone: 'Europe/Berlin', parse_thread: thread });
  return { db, id: out.dataset!.id };
}

/** Everything stored for a dataset: its record and every stream's samples, all fields. */
function stored(db: Db, id: number) {
  const ds = db.prepare('SELECT name, format, samples, t_start, t_end, content_hash, report FROM datasets WHERE id = ?').get(id);
  const files = db.prepare('SELECT bytes, content_hash FROM dataset_files WHERE dataset_id = ?').all(id);
  const segments = db.prepare('SELECT label, origin, start, "end" FROM dataset_segments WHERE dataset_id = ? ORDER BY id').all(id);
  const streams = streamsOf(db, { dataset_id: id }).map((s) => {
    const c = readWindow(db, s.stream_id, -Infinity, Infinity);
    return { n: c.n, t: Array.from(c.t), kind: typeof c.power_kind === 'string' ? c.power_kind : Array.from(c.power_kind ?? []), cols: Object.fromEntries(Object.entries(c.cols).map(([k, v]) => [k, Array.from(v!)])) };
  });
  // The blocks byte for byte (encoding and summaries), not only the samples they decode to.
  const blocks = db
    .prepare('SELECT b.* FROM sample_blocks b JOIN sample_streams s ON s.id = b.stream_id WHERE s.dataset_id = ? ORDER BY b.id')
    .all(id)
    .map((b) => ({ ...(b as Record<string, unknown>), data: Buffer.from((b as { data: Uint8Array }).data).toString('base64') }));
  return { ds, files, segments, streams, blocks };
}

describe('import parse thread', () => {
  it.each([
    ['a generated 8-GPU nvidia-smi log (many chunks and batches)', 'nvidia-smi.csv', (f: string) => nvidiaSmiLog(f, 120_000)],
    ['a generated WattAMeter log', 'wattameter.log', (f: string) => wattameterLog(f, 40_000)],
    ['the nvidia-smi fixture', 'nvidia-smi-units.csv', async (f: string) => copyFileSync('test/fixtures/import/nvidia-smi-units.csv', f)],
    ['the WattAMeter fixture', 'wattameter-node.log', async (f: string) => copyFileSync('test/fixtures/import/wattameter-node.log', f)],
  ])('stores the same dataset from %s as the inline parser', async (_label, name, make) => {
    const file = join(tmp.dir, name);
    await make(file);
    const a = await importWith(file, 'inline');
    const b = await importWith(file, 'worker');
    const sa = stored(a.db, a.id);
    expect(sa.streams.reduce((k, s) => k + s.n, 0)).toBeGreaterThan(0);
    expect(stored(b.db, b.id)).toEqual(sa);
    a.db.close();
    b.db.close();
  }, 120_000);

  it('rejects a bad file from the worker with the file and line, and writes nothing', async () => {
    const file = join(tmp.dir, 'bad.log');
    writeFileSync(file, '2026-11-30_08:00:00.000000 1 2 3\n# timestamp reading-time[ns] gpu-0[mW]\n');
    const db = openDb(join(tmp.dir, `lab-${++n}.db`));
    const inline = await importPaths(db, [file], { format: 'wattameter', zone: 'UTC', parse_thread: 'inline' }).catch((e: Error) => e);
    const worker = await importPaths(db, [file], { format: 'wattameter', zone: 'UTC', parse_thread: 'worker' }).catch((e: Error) => e);
    expect(worker).toBeInstanceOf(Error);
    expect((worker as Error).name).toBe('ImportError');
    expect((worker as Error).message).toBe((inline as Error).message);
    expect((worker as Error).message).toContain(`${file}:1:`);
    expect(db.prepare('SELECT COUNT(*) AS n FROM datasets').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM sample_blocks').get()).toEqual({ n: 0 });
    db.close();
  }, 60_000);
});
