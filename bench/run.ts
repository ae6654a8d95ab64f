// `npm run bench`: runs every benchmark, prints a table and records the results with the machine and date in
// bench/results/. Each result is a ratio against a baseline measured in the same run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../test/helpers/tmp';
import { machine, passes, type BenchResult } from './harness';
import { run as storeSamples } from './store-samples';
import { run as samplerSim } from './sampler-sim';
import { runCsv as exportCsv, runParquet as exportParquet } from './export-samples';
import { run as facility } from './facility';
import { run as importLogs } from './import';
import { run as pagedSamples } from './paged-samples';
import { run as startup } from './startup';

const benches: Record<string, (dir: string) => Promise<BenchResult | BenchResult[]>> = { 'store-samples': storeSamples, 'sampler-sim': samplerSim, import: importLogs, 'export-csv': exportCsv, 'export-parquet': exportParquet, facility, 'paged-samples': pagedSamples, startup };
// `npm run bench -- export-csv,facility` runs only those (and records them in a file of their own).
const only = process.argv[2]?.split(',');
const results: BenchResult[] = [];
const tmp = tempDir('caplab-bench-');
try {
  for (const [id, bench] of Object.entries(benches)) {
    if (only && !only.includes(id)) continue;
    process.stderr.write(`bench ${id}…\n`);
    results.push(...[await bench(tmp.dir)].flat());
  }
} finally {
  tmp.cleanup();
}
const m = machine();
const lines = [
  `# Benchmarks — ${m.date}`,
  '',
  `Machine: ${m.host}, ${m.cpu}, ${m.cores} cores, ${m.mem_gib} GiB, Node ${m.node}, load average ${m.load_1m} at the end`,
  '',
  '| benchmark | ratio | value | target | goal | ok | details |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...results.map((r) => `| ${r.name} | ${r.ratio_label} | ${r.ratio.toFixed(3)} | ${r.better === 'higher' ? '>=' : '<='} ${r.target} | ${r.goal ? `${+r.goal.value.toFixed(3)} ${r.goal.label} (${r.goal.better === 'higher' ? '>=' : '<='} ${r.goal.limit})` : ''} | ${passes(r) ? 'yes' : 'NO'} | ${Object.entries(r.details).map(([k, v]) => `${k}=${typeof v === 'number' ? +v.toFixed(3) : v}`).join(', ')} |`),
];
console.log(lines.join('\n'));
mkdirSync('bench/results', { recursive: true });
const stamp = `${m.date.slice(0, 10)}${only ? `-${only.join('+')}` : ''}`;
writeFileSync(join('bench/results', `local-${stamp}.md`), lines.join('\n') + '\n');
writeFileSync(join('bench/results', `local-${stamp}.json`), JSON.stringify({ machine: m, results }, null, 2) + '\n');
process.exitCode = results.every(passes) ? 0 : 1;
