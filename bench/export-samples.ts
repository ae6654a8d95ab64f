import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import { openDb, type Db } from '../src/main/lab/store/db';
import { exportSamplesCsv, exportSamplesParquet } from '../src/main/lab/exporters/samples';
import { ALL_SAMPLE_COLUMNS, iterateSamples, sampleQuery } from '../src/main/lab/store/sample-stream';
import { type BenchResult } from './harness';

const ROWS = Number(process.env.CAPLAB_BENCH_EXPORT_ROWS ?? 10_000_000);

/** A lab database with `n` samples of one sweep on 8 GPUs at 10 Hz (realistic, varied values), made in SQL. */
function makeDb(file: string, n: number): Db {
  const db = openDb(file);
  db.exec(`INSERT INTO sweeps (id, name, plan, status, host, backend, simulated, created_at) VALUES (1, 'bench', '{"workloads":[{"id":"x"}],"caps":[300]}', 'done', 'bench', 'sim', 1, 0)`);
  for (let i = 0; i < 8; i++) {
    db.prepare(`INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, updated_at) VALUES (?, 'bench', 'sim', ?, 'gpu', 'H100', 'sim', 1, 0)`).run(`bench/sim:${i}/H100`, i);
  }
  db.exec(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${n - 1})
    INSERT INTO samples (sweep_id, run_id, device_id, t, power_w, power_kind, power_avg_w, energy_mj, sm_clock_mhz, mem_clock_mhz, temp_c, util_gpu, util_mem, mem_used_mb, limit_w, throttle_reasons)
    SELECT 1, NULL, 1 + i % 8, 1764500000 + (i / 8) * 0.1 + (i % 8) * 0.0123, 250 + (i * 7919 % 45000) / 100.0, 'instant', NULL, i * 40.5,
      1410 + i % 570, 2619, 40 + (i % 400) / 10.0, i % 101, i % 67, 40000 + i % 1000, 700, CASE WHEN i % 3 = 0 THEN 4 ELSE 0 END FROM c`);
  return db;
}

/** Peak resident memory growth while fn runs, sampled every 20 ms. */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; wall_s: number; cpu_s: number; rss_growth_mb: number }> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  const c0 = process.cpuUsage();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    const c = process.cpuUsage(c0);
    return { value, wall_s: (performance.now() - t0) / 1000, cpu_s: (c.user + c.system) / 1e6, rss_growth_mb: (peak - base) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

/** The same query through the sqlite3 command-line shell's CSV mode (C): the strongest plain CSV dump at hand. */
function sqlite3Csv(dbFile: string, out: string): number {
  // The shell joins the device key in SQL (it has no other way to print it).
  const sql = sampleQuery({ sweepId: 1 }, ALL_SAMPLE_COLUMNS).sql.replace('?', '1').replace('s.device_id', 'd.device_key').replace('FROM samples s', 'FROM samples s JOIN devices d ON d.id = s.device_id');
  const t0 = performance.now();
  const r = spawnSync('sqlite3', ['-readonly', '-csv', '-header', dbFile, `.output ${out}`, sql], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`sqlite3 failed: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

/** hyparquet-writer used the simple way: every row in memory, one parquetWrite call (same schema and codec). */
async function parquetAllInMemory(db: Db, out: string): Promise<void> {
  const names = [...ALL_SAMPLE_COLUMNS, 'device', 'run_id'];
  const cols: unknown[][] = names.map(() => []);
  const ti = names.indexOf('throttle_reasons');
  for (const r of iterateSamples(db, { sweepId: 1 }, ALL_SAMPLE_COLUMNS)) for (let i = 0; i < r.length; i++) cols[i]!.push(i === ti && r[i] != null ? BigInt(r[i] as number) : r[i]);
  const w = new ParquetWriter({ writer: fileWriter(out), schema: [{ name: 'root', num_children: names.length }, ...names.map((name) => ({ name, type: name === 't' ? 'DOUBLE' : name === 'power_kind' || name === 'device' ? 'BYTE_ARRAY' : name === 'throttle_reasons' ? 'INT64' : name === 'run_id' ? 'INT32' : 'DOUBLE', ...(name === 'power_kind' || name === 'device' ? { converted_type: 'UTF8' } : {}), repetition_type: name === 't' || name === 'power_kind' || name === 'device' ? 'REQUIRED' : 'OPTIONAL' }) as never)], codec: 'SNAPPY', statistics: false });
  await w.write({ columnData: names.map((name, i) => ({ name, data: cols[i] as never })), rowGroupSize: 131_072 });
  w.finish();
}

export async function runCsv(dir: string): Promise<BenchResult> {
  const file = join(dir, 'export.db');
  makeDb(file, ROWS).close();
  const db = openDb(file, { readonly: true });
  try {
    const small = await peakRss(() => exportSamplesCsv(db, join(dir, 'small.csv'), { selection: { sweepId: 1, to: 1764500000 + ROWS / 80 / 10 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const big = await peakRss(() => exportSamplesCsv(db, join(dir, 'big.csv'), { selection: { sweepId: 1 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const baseWall = sqlite3Csv(file, join(dir, 'sqlite3.csv'));
    const rate = big.value.rows / big.wall_s;
    const baseRate = ROWS / baseWall;
    return {
      name: `export: ${(ROWS / 1e6).toFixed(0)} M samples to CSV`,
      ratio_label: 'rows/s caplab export samples --csv / rows/s sqlite3 -csv (C shell) on the same query',
      ratio: rate / baseRate,
      target: 0.5,
      better: 'higher',
      details: {
        rows: big.value.rows,
        rows_per_s: Math.round(rate),
        rows_per_cpu_s: Math.round(big.value.rows / big.cpu_s),
        sqlite3_rows_per_s: Math.round(baseRate),
        mb: big.value.bytes / 2 ** 20,
        rss_growth_mb_10pct_rows: small.rss_growth_mb,
        rss_growth_mb_all_rows: big.rss_growth_mb,
        sqlite3_mb: statSync(join(dir, 'sqlite3.csv')).size / 2 ** 20,
      },
    };
  } finally {
    db.close();
  }
}

export async function runParquet(dir: string): Promise<BenchResult> {
  const file = join(dir, 'export.db');
  try {
    statSync(file);
  } catch {
    makeDb(file, ROWS).close();
  }
  const db = openDb(file, { readonly: true });
  try {
    const small = await peakRss(() => exportSamplesParquet(db, join(dir, 'small.parquet'), { selection: { sweepId: 1, to: 1764500000 + ROWS / 80 / 10 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const big = await peakRss(() => exportSamplesParquet(db, join(dir, 'big.parquet'), { selection: { sweepId: 1 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const base = await peakRss(() => parquetAllInMemory(db, join(dir, 'base.parquet')));
    const rate = big.value.rows / big.wall_s;
    return {
      name: `export: ${(ROWS / 1e6).toFixed(0)} M samples to Parquet`,
      ratio_label: 'peak memory growth, streamed row groups / all rows in memory then one hyparquet-writer call',
      ratio: big.rss_growth_mb / base.rss_growth_mb,
      target: 0.25,
      better: 'lower',
      details: {
        rows: big.value.rows,
        rows_per_s: Math.round(rate),
        rows_per_cpu_s: Math.round(big.value.rows / big.cpu_s),
        baseline_rows_per_s: Math.round(ROWS / base.wall_s),
        mb: big.value.bytes / 2 ** 20,
        rss_growth_mb_10pct_rows: small.rss_growth_mb,
        rss_growth_mb_all_rows: big.rss_growth_mb,
        baseline_rss_growth_mb: base.rss_growth_mb,
      },
    };
  } finally {
    db.close();
    execFileSync('rm', ['-f', file]);
  }
}
