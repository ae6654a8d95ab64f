// One measured export in a process of its own (so its peak memory is its own): prints rows, wall and CPU seconds
// and peak resident memory as JSON. Used by export-samples.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { openDb } from '../src/main/lab/store/db';
import { exportSamplesCsv, exportSamplesParquet } from '../src/main/lab/exporters/samples';
import { ALL_SAMPLE_COLUMNS } from '../src/main/lab/store/sample-stream';
import { baselineCsv, baselineParquet } from './export-baselines';

const [kind, dbFile, out, to] = process.argv.slice(2) as [string, string, string, string | undefined];
const db = openDb(dbFile, { readonly: true });
/**
 * CPU seconds of each of this process's threads (Linux /proc, in clock ticks of 1/100 s; worker threads come and go,
 * so sampled): the busiest thread bounds the rows/s the export reaches on an idle machine with cores to spare.
 */
const threadCpu = new Map<string, number>();
const TICKS_PER_S = 100;
function sampleThreads(): void {
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threadCpu.set(tid, (Number(f[11]) + Number(f[12])) / TICKS_PER_S);
    } catch {
      // the thread ended between the listing and the read
    }
  }
}
let peak = process.memoryUsage().rss;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
  sampleThreads();
}, 20);
const c0 = process.cpuUsage();
const t0 = performance.now();
const o = { selection: { sweepId: 1, to: to ? Number(to) : undefined }, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' as const };
const rows =
  kind === 'csv' ? (await exportSamplesCsv(db, out, o)).rows : kind === 'parquet' ? (await exportSamplesParquet(db, out, o)).rows : kind === 'base-csv' ? await baselineCsv(db, out) : await baselineParquet(db, out);
const c = process.cpuUsage(c0);
clearInterval(timer);
sampleThreads();
peak = Math.max(peak, process.memoryUsage().rss);
console.log(JSON.stringify({ rows, wall_s: (performance.now() - t0) / 1000, cpu_s: (c.user + c.system) / 1e6, peak_rss_mb: peak / 2 ** 20, main_thread_cpu_s: threadCpu.get(String(process.pid)), busiest_thread_cpu_s: Math.max(...threadCpu.values()) }));
db.close();
