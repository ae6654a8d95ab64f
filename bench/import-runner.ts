// Bundled by bench/import.ts and run as `node runner.mjs FILE DB`: one `caplab import` of FILE into DB through the
// same code as the CLI (importPaths), without the tsx loader the development CLI carries. Also reports CPU seconds
// per thread (polled from /proc, Linux only), so that which thread sets the pace shows even on a loaded machine.
import { readdirSync, readFileSync } from 'node:fs';
import { importPaths } from '../src/main/lab/datasets/importer';
import { openDb } from '../src/main/lab/store/db';

const [file, dbFile] = process.argv.slice(2);
const TICK_S = 0.01; // USER_HZ is 100 on Linux
const cpuByThread = new Map<string, number>();
function pollThreads(): void {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpuByThread.set(tid, (Number(f[11]) + Number(f[12])) * TICK_S);
    } catch {
      // The thread ended between the listing and the read: its last polled value stands.
    }
  }
}
const poll = setInterval(pollThreads, 50);
const db = openDb(dbFile!);
const t0 = performance.now();
// CAPLAB_BENCH_IMPORT_THREAD=shards|worker forces where the file is parsed (default: as the CLI decides).
const thread = process.env.CAPLAB_BENCH_IMPORT_THREAD as 'shards' | 'worker' | undefined;
const out = await importPaths(db, [file!], { format: 'auto', zone: 'UTC', parse_thread: thread });
const wall = (performance.now() - t0) / 1000;
db.close();
pollThreads();
clearInterval(poll);
// The main thread's tid is the pid; the others are the import's worker threads, V8's GC helpers and libuv's pool.
const main = cpuByThread.get(String(process.pid)) ?? 0;
const others = [...cpuByThread].filter(([tid]) => tid !== String(process.pid)).map(([, s]) => s).sort((a, b) => b - a);
const busy = others.filter((s) => s >= 0.2);
const threads = { main_cpu_s: +main.toFixed(2), busiest_other_cpu_s: busy.map((s) => +s.toFixed(2)), rest_cpu_s: +(others.slice(busy.length).reduce((a, b) => a + b, 0)).toFixed(2) };
process.stdout.write(JSON.stringify({ samples: out.dataset?.samples ?? 0, rows: out.reports[0]?.rows_read ?? 0, wall_s: wall, threads }) + '\n');
