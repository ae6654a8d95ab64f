// The samples exports on a selection large enough for worker threads and several Parquet row groups, with missing
// readings, per-row sensor kinds and negative values: every path gives the stored values exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { tempDir } from '../helpers/tmp';
import { openDb, type Db } from '../../src/main/lab/store/db';
import { readSamples, SampleWriter, streamFor, streamsOf } from '../../src/main/lab/store/sample-blocks';
import { exportSamplesCsv, exportSamplesParquet } from '../../src/main/lab/exporters/samples';
import { ALL_SAMPLE_COLUMNS } from '../../src/main/lab/store/sample-stream';
import type { SampleColumns } from '../../src/shared/sample';

const tmp = tempDir('caplab-export-threads-');
afterAll(() => tmp.cleanup());
const file = join(tmp.dir, 'lab.db');
const PER_DEVICE = 160_000;
type Row = Record<string, number | string | null>;

/** Two GPUs' samples: energy missing on every 7th row, the second GPU's temperature on every 11th, the sensor kind changing per row, temperatures below zero. */
function makeDb(): void {
  const db = openDb(file);
  db.exec(`INSERT INTO sweeps (id, name, plan, status, host, backend, simulated, created_at) VALUES (1, 't', '{"workloads":[{"id":"x"}],"caps":[300]}', 'done', 'h', 'sim', 1, 0)`);
  const writer = new SampleWriter(db);
  for (let d = 0; d < 2; d++) {
    const row = Number(db.prepare(`INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, updated_at) VALUES (?, 'h', 'sim', ?, 'gpu', 'H100', 'sim', 1, 0)`).run(`h/sim:${d}/H100, "A"`, d).lastInsertRowid);
    const stream = streamFor(db, { sweep_id: 1 }, row);
    for (let start = 0; start < PER_DEVICE; start += 40_000) {
      const m = 40_000;
      const col = () => new Float64Array(m);
      const kinds = new Uint8Array(m);
      const c: SampleColumns = { n: m, t: col(), power_kind: kinds, cols: { power_w: col(), energy_mj: col(), temp_c: col(), util_gpu: col() } };
      for (let k = 0; k < m; k++) {
        const i = start + k;
        c.t[k] = 1764500000 + i * 0.1 + d * 0.000123;
        kinds[k] = i % 5 === 0 ? 1 : 0;
        c.cols.power_w![k] = 100 + ((i * 7919) % 600_000) / 1000;
        c.cols.energy_mj![k] = i % 7 === 0 ? NaN : i * 40_512;
        c.cols.temp_c![k] = d === 1 && i % 11 === 0 ? NaN : -20 + (i % 900) / 10;
        c.cols.util_gpu![k] = (i % 1001) / 10;
      }
      writer.append(stream, c);
    }
  }
  writer.close();
  db.close();
}

/** The stored samples through the store's own reads, as export rows. */
function stored(db: Db): Row[] {
  const keys = db.prepare('SELECT id, device_key FROM devices').all() as { id: number; device_key: string }[];
  return streamsOf(db, { sweep_id: 1 }).flatMap((s) => readSamples(db, s.stream_id, -Infinity, Infinity).map((r) => ({ ...Object.fromEntries(ALL_SAMPLE_COLUMNS.map((c) => [c, r[c] ?? null])), device: keys.find((k) => k.id === s.device_row)!.device_key })));
}

let db: Db;
beforeAll(() => {
  makeDb();
  db = openDb(file, { readonly: true });
}, 120_000);
afterAll(() => db?.close());

const all = { selection: { sweepId: 1 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' as const };

describe('samples exports of a large selection', () => {
  it('writes the same CSV bytes formatted in worker threads as on the export’s own thread, and pandas reads back the stored values', { timeout: 180_000 }, async () => {
    const here = await exportSamplesCsv(db, join(tmp.dir, 'here.csv'), { ...all, threads: 0 });
    const progress: number[] = [];
    const workers = await exportSamplesCsv(db, join(tmp.dir, 'workers.csv'), { ...all, threads: 2, progress: (done) => progress.push(done) });
    expect(workers.rows).toBe(2 * PER_DEVICE);
    expect(here.rows).toBe(workers.rows);
    expect(readFileSync(workers.path).equals(readFileSync(here.path))).toBe(true);
    expect(progress.length).toBeGreaterThan(0);

    const py = `
import json, sys, pandas as pd
df = pd.read_csv(sys.argv[1], float_precision='round_trip', keep_default_na=False, na_values=[''])
df.columns = [c.split(' [')[0] for c in df.columns]
print(json.dumps([{k: (None if (isinstance(v, float) and v != v) else v) for k, v in r.items()} for r in df.to_dict(orient='records')], default=lambda o: o.item()))
`;
    const got = JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, workers.path], { encoding: 'utf8', maxBuffer: 1 << 30 })) as Row[];
    expect(got).toEqual(stored(db));
  });

  it('writes Parquet of several row groups that hyparquet reads back to the stored values (missing readings as nulls)', { timeout: 180_000 }, async () => {
    const r = await exportSamplesParquet(db, join(tmp.dir, 's.parquet'), all);
    const f = await asyncBufferFromFile(r.path);
    const meta = await parquetMetadataAsync(f);
    expect(meta.row_groups.length).toBeGreaterThan(1);
    // REQUIRED (no definition levels) only where the block summaries show a reading in every sample
    const repetition = Object.fromEntries(meta.schema.slice(1).map((e) => [e.name, e.repetition_type]));
    expect(repetition).toMatchObject({ t: 'REQUIRED', power_w: 'REQUIRED', power_kind: 'REQUIRED', device: 'REQUIRED', temp_c: 'OPTIONAL', energy_mj: 'OPTIONAL', util_gpu: 'OPTIONAL', sm_clock_mhz: 'OPTIONAL' });
    expect(meta.row_groups[0]!.columns[0]!.meta_data!.codec).toBe('UNCOMPRESSED');
    const rows = (await parquetReadObjects({ file: f })) as Row[];
    expect(rows).toEqual(stored(db));
  });

  it('writes the same Parquet bytes encoded in a worker thread as on the export’s own thread', { timeout: 180_000 }, async () => {
    const worker = await exportSamplesParquet(db, join(tmp.dir, 'w.parquet'), { ...all, threads: 1 });
    const here = await exportSamplesParquet(db, join(tmp.dir, 'h.parquet'), { ...all, threads: 0 });
    expect(worker.rows).toBe(PER_DEVICE * 2);
    expect(readFileSync(worker.path).equals(readFileSync(here.path))).toBe(true);
  });

  it('fails a worker export with the codec’s error on a damaged block and leaves no file behind', { timeout: 180_000 }, async () => {
    const copy = join(tmp.dir, 'damaged.db');
    db.prepare('VACUUM INTO ?').run(copy);
    const bad = openDb(copy);
    bad.prepare('UPDATE sample_blocks SET data = CAST(X\'09\' || substr(data, 2) AS BLOB) WHERE id = (SELECT MAX(id) FROM sample_blocks)').run();
    try {
      await expect(exportSamplesCsv(bad, join(tmp.dir, 'damaged.csv'), { ...all, threads: 2 })).rejects.toThrow(/sample block version 9/);
      expect(existsSync(join(tmp.dir, 'damaged.csv'))).toBe(false);
      expect(readdirSync(tmp.dir).filter((n) => n.includes('damaged.csv'))).toEqual([]);
      await expect(exportSamplesParquet(bad, join(tmp.dir, 'damaged.parquet'), { ...all, threads: 1 })).rejects.toThrow(/sample block version 9/);
      expect(readdirSync(tmp.dir).filter((n) => n.includes('damaged.parquet'))).toEqual([]);
    } finally {
      bad.close();
    }
  });
});
