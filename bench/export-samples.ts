import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import { openDb, type Db } from '../src/main/lab/store/db';
import { exportSamplesCsv, exportSamplesParquet } from '../src/main/lab/exporters/samples';
import { ALL_SAMPLE_COLUMNS, iterateSampleChunks, valueAt } from '../src/main/lab/store/sample-stream';
import { readSamples, SampleWriter, streamFor, streamsOf } from '../src/main/lab/store/sample-blocks';
import { openAtomicStream } from '../src/main/lab/exporters/atomic';
import type { SampleColumns } from '../src/shared/sample';
import { type BenchResult } from './harness';

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

/** Peak resident memory growth while fn runs, sampled every 20 ms. */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; wall_s: number; cpu_s: number; rss_growth_mb: number; peak_rss_mb: number }> {
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
    return { value, wall_s: (performance.now() - t0) / 1000, cpu_s: (c.user + c.system) / 1e6, rss_growth_mb: (peak - base) / 2 ** 20, peak_rss_mb: peak / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

/** The store's own row reads (readSamples, the analysis' read path) joined row by row, each stream read whole. */
async function rowsJoined(db: Db, out: string): Promise<number> {
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
async function parquetAllInMemory(db: Db, out: string): Promise<void> {
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
}

export async function runCsv(dir: string): Promise<BenchResult> {
  const file = join(dir, 'export.db');
  makeDb(file, ROWS).close();
  const db = openDb(file, { readonly: true });
  try {
    const small = await peakRss(() => exportSamplesCsv(db, join(dir, 'small.csv'), { selection: { sweepId: 1, to: 1764500000 + ROWS / 8 / 10 / 10 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const big = await peakRss(() => exportSamplesCsv(db, join(dir, 'big.csv'), { selection: { sweepId: 1 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const base = await peakRss(() => rowsJoined(db, join(dir, 'rows.csv')));
    const rate = big.value.rows / big.wall_s;
    const baseRate = base.value / base.wall_s;
    return {
      name: `export: ${(ROWS / 1e6).toFixed(0)} M samples to CSV`,
      ratio_label: 'rows/s caplab export samples --csv / rows/s the store’s row reads (readSamples) joined per row',
      ratio: rate / baseRate,
      target: 0.5,
      better: 'higher',
      details: {
        rows: big.value.rows,
        rows_per_s: Math.round(rate),
        rows_per_cpu_s: Math.round(big.value.rows / big.cpu_s),
        baseline_rows_per_s: Math.round(baseRate),
        mb: big.value.bytes / 2 ** 20,
        peak_rss_mb_10pct_rows: small.peak_rss_mb,
        peak_rss_mb_all_rows: big.peak_rss_mb,
        baseline_peak_rss_mb: base.peak_rss_mb,
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
    const small = await peakRss(() => exportSamplesParquet(db, join(dir, 'small.parquet'), { selection: { sweepId: 1, to: 1764500000 + ROWS / 8 / 10 / 10 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const big = await peakRss(() => exportSamplesParquet(db, join(dir, 'big.parquet'), { selection: { sweepId: 1 }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' }));
    const base = await peakRss(() => parquetAllInMemory(db, join(dir, 'base.parquet')));
    const rate = big.value.rows / big.wall_s;
    return {
      name: `export: ${(ROWS / 1e6).toFixed(0)} M samples to Parquet`,
      ratio_label: 'peak resident memory, streamed row groups / all rows in memory then one hyparquet-writer call',
      ratio: big.peak_rss_mb / base.peak_rss_mb,
      target: 0.5,
      better: 'lower',
      details: {
        rows: big.value.rows,
        rows_per_s: Math.round(rate),
        rows_per_cpu_s: Math.round(big.value.rows / big.cpu_s),
        baseline_rows_per_s: Math.round(ROWS / base.wall_s),
        mb: big.value.bytes / 2 ** 20,
        peak_rss_mb_10pct_rows: small.peak_rss_mb,
        peak_rss_mb_all_rows: big.peak_rss_mb,
        baseline_peak_rss_mb: base.peak_rss_mb,
      },
    };
  } finally {
    db.close();
    execFileSync('rm', ['-f', file]);
  }
}
