// Large files are parsed on a worker thread while the importing thread stores: the dataset, its report, its
// content hash and every stored sample must be the same as when the file is parsed inline, and a parse error must
// name the same file and line. Real files, real SQLite databases, a real worker thread.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
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

type Thread = 'worker' | 'inline' | 'shards';

async function importWith(file: string, thread: Thread, shard_bytes?: number): Promise<{ db: Db; id: number }> {
  const db = openDb(join(tmp.dir, `lab-${++n}.db`));
  const out = await importPaths(db, [file], { format: 'auto', zone: 'Europe/Berlin', parse_thread: thread, shard_bytes });
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
  // Each stream's blocks byte for byte (encoding and summaries), not only the samples they decode to. Not their row
  // ids: how the streams' blocks interleave in the table follows where batches end, which differs between paths.
  const blocks = db
    .prepare('SELECT b.* FROM sample_blocks b JOIN sample_streams s ON s.id = b.stream_id WHERE s.dataset_id = ? ORDER BY b.stream_id, b.id')
    .all(id)
    .map((b) => ({ ...(b as Record<string, unknown>), id: undefined, data: Buffer.from((b as { data: Uint8Array }).data).toString('base64') }));
  return { ds, files, segments, streams, blocks };
}

/** Imports a file both ways and checks that everything stored is the same; returns what the first way stored. */
async function expectSameStored(file: string, base: Thread, other: Thread, shard_bytes?: number): Promise<ReturnType<typeof stored>> {
  const a = await importWith(file, base);
  const b = await importWith(file, other, shard_bytes);
  const sa = stored(a.db, a.id);
  expect(sa.streams.reduce((k, s) => k + s.n, 0)).toBeGreaterThan(0);
  expect(stored(b.db, b.id)).toEqual(sa);
  a.db.close();
  b.db.close();
  return sa;
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
    await expectSameStored(file, 'inline', 'worker');
  }, 120_000);

  it('stores the same dataset and report from an nvidia-smi log parsed in chunks on two threads as the inline parser', async () => {
    // Rows that the merge of chunk reports must get right wherever a chunk edge falls: skipped lines of several kinds
    // (their line numbers), [N/A] cells (their count), the header repeated, CRLF lines, a line over 64 KiB, a GPU
    // first seen late in the file, and gaps.
    const file = join(tmp.dir, 'nvidia-smi-mixed.csv');
    await nvidiaSmiLog(file, 30_000);
    const lines = readFileSync(file, 'latin1').split('\n');
    const header = lines[0]!;
    const out: string[] = [];
    lines.forEach((l, i) => {
      if (i > 0 && l && i % 997 === 0) out.push('2026/13/45 99:99:99.000, 0, x, y, z, 1, 2, 3, 4, 5');
      if (i > 0 && l && i % 1999 === 0) out.push(l.replace(/, [\d.]+, (\d+), 2619,/, ', [N/A], $1, 2619,'));
      if (i > 0 && l && i % 4001 === 0) out.push(header);
      if (i > 0 && l && i % 3001 === 0) out.push(l.slice(0, 40));
      if (i > 0 && l && i % 2503 === 0) out.push(l.replace(/, [\d.]+, (\d+), 2619,/, ', abc, $1, 2619,'));
      if (i === 11_000) out.push('x'.repeat(70_000));
      if (i > 20_000 && l && i % 8 === 0) out.push(l.replace(', 0, NVIDIA', ', 9, NVIDIA').replace(/GPU-[0-9a-f-]+/, 'GPU-late-0000'));
      if (i > 0 && i % 5 === 0 && i < 15_000) out.push(`${l}\r`);
      else if (i < 25_000 || i > 26_000) out.push(l);
    });
    writeFileSync(file, out.join('\n'), 'latin1');
    const sa = await expectSameStored(file, 'inline', 'shards', 64 << 10);
    const report = JSON.parse((sa.ds as { report: string }).report) as { skipped: { reason: string; count: number }[]; warnings: string[]; devices: unknown[] };
    expect(report.skipped.length).toBeGreaterThanOrEqual(4);
    expect(report.warnings.some((w) => /cell\(s\) were \[N\/A\]/.test(w))).toBe(true);
    expect(report.devices).toHaveLength(9);
  }, 120_000);

  it('stores the same from a larger nvidia-smi log parsed in default-size chunks on two threads as on one', async () => {
    const file = join(tmp.dir, 'nvidia-smi-big.csv');
    await nvidiaSmiLog(file, 300_000);
    await expectSameStored(file, 'worker', 'shards');
  }, 180_000);

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

  it('rejects an nvidia-smi log whose header cannot be read from the chunked parse as inline, and writes nothing', async () => {
    const file = join(tmp.dir, 'bad-unit.csv');
    writeFileSync(file, 'timestamp, index, power.draw [furlongs]\n2026/11/30 08:00:00.000, 0, 100\n'.repeat(3));
    const db = openDb(join(tmp.dir, `lab-${++n}.db`));
    const inline = await importPaths(db, [file], { format: 'nvidia-smi', zone: 'UTC', parse_thread: 'inline' }).catch((e: Error) => e);
    const shards = await importPaths(db, [file], { format: 'nvidia-smi', zone: 'UTC', parse_thread: 'shards', shard_bytes: 16 }).catch((e: Error) => e);
    expect(shards).toBeInstanceOf(Error);
    expect((shards as Error).message).toBe((inline as Error).message);
    expect((shards as Error).message).toContain(`${file}:1:`);
    expect(db.prepare('SELECT COUNT(*) AS n FROM datasets').get()).toEqual({ n: 0 });
    db.close();
  }, 60_000);
});
