// One measured export in a process of its own (so its peak memory is its own): prints rows, wall and CPU seconds
// and peak resident memory as JSON. Used by export-samples.ts.
import { openDb } from '../src/main/lab/store/db';
import { exportSamplesCsv, exportSamplesParquet } from '../src/main/lab/exporters/samples';
import { ALL_SAMPLE_COLUMNS } from '../src/main/lab/store/sample-stream';
import { baselineCsv, baselineParquet } from './export-baselines';

const [kind, dbFile, out, to] = process.argv.slice(2) as [string, string, string, string | undefined];
const db = openDb(dbFile, { readonly: true });
let peak = process.memoryUsage().rss;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const c0 = process.cpuUsage();
const t0 = performance.now();
const o = { selection: { sweepId: 1, to: to ? Number(to) : undefined }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' as const };
const rows =
  kind === 'csv' ? (await exportSamplesCsv(db, out, o)).rows : kind === 'parquet' ? (await exportSamplesParquet(db, out, o)).rows : kind === 'base-csv' ? await baselineCsv(db, out) : await baselineParquet(db, out);
const c = process.cpuUsage(c0);
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(JSON.stringify({ rows, wall_s: (performance.now() - t0) / 1000, cpu_s: (c.user + c.system) / 1e6, peak_rss_mb: peak / 2 ** 20 }));
db.close();
