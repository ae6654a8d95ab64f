import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDb, type Db } from '../src/main/lab/store/db';
import { SampleWriter, streamFor } from '../src/main/lab/store/sample-blocks';
import type { SampleColumns } from '../src/shared/sample';
import { type BenchResult } from './harness';
import { exportThreads } from '../src/main/lab/exporters/csv-workers';

const HERE = dirname(fileURLToPath(import.meta.url));

const ROWS = Number(process.env.CAPLAB_BENCH_EXPORT_ROWS ?? 10_000_000);

/** A lab database with `n` samples of one sweep on 8 GPUs at 10 Hz (varied values), written through the block store. */
function makeDb(file: string, n: number): Db {
  const db = openDb(file);
  db.exec(`INSERT INTO sweeps (id, name, plan, status, host, backend, simulated, created_at) VALUES (1, 'bench', '{"workloads":[{"id":"x"}],"caps":[300]}', 'done', 'bench', 'sim', 1, 0)`);
  const writer = new SampleWriter(db);
  const perDevice = Math.ceil(n / 8);
  for (let d = 0; d < 8; d++) {
    const row = Number(db.prepare(`INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, updated_at) VALUES (?, 'bench', 'sim', ?, 'gpu', 'H100', 'sim', 1, 0)`).run(`bench/sim:${d}/H100`, d).lastInsertRowid);
    const stream = streamFor(db, { sweep_id: 1 }, row);
    for (let start = 0; start < perDevice; start += 65_536) {
      const m = Math.min(65_536, perDevice - start);
      const col = () => new Float64Array(m);
      const c: SampleColumns = { n: m, t: col(), power_kind: 'instant', cols: { power_w: col(), energy_mj: col(), sm_clock_mhz: col(), mem_clock_mhz: col(), temp_c: col(), util_gpu: col(), util_mem: col(), mem_used_mb: col(), limit_w: col(), throttle_reasons: col() } };
      for (let k = 0; k < m; k++) {
        const i = start + k;
        c.t[k] = 1764500000 + i * 0.1 + d * 0.0123 + ((i * 7) % 13) * 1e-4;
        c.cols.power_w![k] = 250 + ((i * 7919) % 450_000) / 1000;
        c.cols.energy_mj![k] = i * 40_512 + d;
        c.cols.sm_clock_mhz![k] = 1410 + (i % 570);
        c.cols.mem_clock_mhz![k] = 2619;
        c.cols.temp_c![k] = 40 + (i % 400) / 10;
        c.cols.util_gpu![k] = i % 101;
        c.cols.util_mem![k] = i % 67;
        c.cols.mem_used_mb![k] = 40000 + (i % 1000);
        c.cols.limit_w![k] = 700;
        c.cols.throttle_reasons![k] = i % 3 === 0 ? 4 : 0;
      }
      writer.append(stream, c);
    }
  }
  writer.close();
  return db;
}

interface Measured {
  rows: number;
  wall_s: number;
  cpu_s: number;
  peak_rss_mb: number;
  main_thread_cpu_s: number;
  busiest_thread_cpu_s: number;
}

/** Runs one export in a child process (export-child.ts) so that its peak memory is measured alone. */
function measure(kind: 'csv' | 'parquet' | 'base-csv' | 'base-parquet', db: string, out: string, to?: number, threads?: number): Measured {
  const env = threads === undefined ? process.env : { ...process.env, CAPLAB_EXPORT_THREADS: String(threads) };
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(HERE, 'export-child.ts'), kind, db, out, ...(to === undefined ? [] : [String(to)])], { encoding: 'utf8', maxBuffer: 1 << 20, env });
  if (r.status !== 0) throw new Error(`export bench child ${kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measured;
}

/** The bench database (made once, shared by the CSV and Parquet benches). */
function benchDb(dir: string): string {
  const file = join(dir, 'export.db');
  if (!existsSync(file)) makeDb(file, ROWS).close();
  return file;
}
const TENTH = 1764500000 + ROWS / 8 / 10 / 10;

export async function runCsv(dir: string): Promise<BenchResult> {
  const file = benchDb(dir);
  const small = measure('csv', file, join(dir, 'small.csv'), TENTH);
  const big = measure('csv', file, join(dir, 'big.csv'));
  const oneThread = measure('csv', file, join(dir, 'big-1.csv'), undefined, 0);
  const base = measure('base-csv', file, join(dir, 'rows.csv'));
  return {
    name: `export: ${(ROWS / 1e6).toFixed(0)} M samples to CSV`,
    ratio_label: 'rows/s caplab export samples --csv / rows/s the store’s row reads (readSamples) joined per row',
    ratio: big.rows / big.wall_s / (base.rows / base.wall_s),
    target: 1,
    better: 'higher',
    goal: { label: 'rows/s (wall)', value: big.rows / big.wall_s, limit: 1_000_000, better: 'higher' },
    details: {
      rows: big.rows,
      rows_per_s: Math.round(big.rows / big.wall_s),
      rows_per_cpu_s: Math.round(big.rows / big.cpu_s),
      export_threads: exportThreads(),
      no_workers_rows_per_s: Math.round(oneThread.rows / oneThread.wall_s),
      no_workers_rows_per_cpu_s: Math.round(oneThread.rows / oneThread.cpu_s),
      no_workers_peak_rss_mb: oneThread.peak_rss_mb,
      baseline_rows_per_s: Math.round(base.rows / base.wall_s),
      baseline_rows_per_cpu_s: Math.round(base.rows / base.cpu_s),
      mb: statSync(join(dir, 'big.csv')).size / 2 ** 20,
      peak_rss_mb_10pct_rows: small.peak_rss_mb,
      peak_rss_mb_all_rows: big.peak_rss_mb,
      baseline_peak_rss_mb: base.peak_rss_mb,
    },
  };
}

export async function runParquet(dir: string): Promise<BenchResult> {
  const file = benchDb(dir);
  try {
    const small = measure('parquet', file, join(dir, 'small.parquet'), TENTH);
    const big = measure('parquet', file, join(dir, 'big.parquet'));
    const here = measure('parquet', file, join(dir, 'big-0.parquet'), undefined, 0);
    const base = measure('base-parquet', file, join(dir, 'base.parquet'));
    return {
      name: `export: ${(ROWS / 1e6).toFixed(0)} M samples to Parquet`,
      ratio_label: 'peak resident memory, streamed row groups / all rows in memory then one hyparquet-writer call',
      ratio: big.peak_rss_mb / base.peak_rss_mb,
      target: 0.5,
      better: 'lower',
      goal: { label: 'rows/s (wall)', value: big.rows / big.wall_s, limit: 1_000_000, better: 'higher' },
      details: {
        rows: big.rows,
        rows_per_s: Math.round(big.rows / big.wall_s),
        rows_per_cpu_s: Math.round(big.rows / big.cpu_s),
        // what an idle machine with a core per thread would reach: rows per CPU-second of the busiest thread
        rows_per_busiest_thread_cpu_s: Math.round(big.rows / big.busiest_thread_cpu_s),
        main_thread_cpu_s: big.main_thread_cpu_s,
        busiest_thread_cpu_s: big.busiest_thread_cpu_s,
        no_worker_rows_per_s: Math.round(here.rows / here.wall_s),
        no_worker_rows_per_cpu_s: Math.round(here.rows / here.cpu_s),
        no_worker_rows_per_busiest_thread_cpu_s: Math.round(here.rows / here.busiest_thread_cpu_s),
        no_worker_peak_rss_mb: here.peak_rss_mb,
        baseline_rows_per_s: Math.round(base.rows / base.wall_s),
        baseline_rows_per_cpu_s: Math.round(base.rows / base.cpu_s),
        rows_per_s_vs_baseline: big.rows / big.wall_s / (base.rows / base.wall_s),
        mb: statSync(join(dir, 'big.parquet')).size / 2 ** 20,
        peak_rss_mb_10pct_rows: small.peak_rss_mb,
        peak_rss_mb_all_rows: big.peak_rss_mb,
        baseline_peak_rss_mb: base.peak_rss_mb,
      },
    };
  } finally {
    execFileSync('rm', ['-f', file]);
  }
}
