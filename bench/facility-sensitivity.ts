// How the NLR colocation reconstruction's peaks, p99, ramps and load-duration curve move with job-size and profile
// assumptions (docs/facility.md). `npx tsx bench/facility-sensitivity.ts [DAYS]` prints a markdown table.
import { runScenarioInline } from '../src/core/facility/run';
import { sensitivityVariants } from './facility-variants';

const days = Number(process.argv[2] ?? 91);
const mw = (w: number | null) => (w === null ? '–' : (w / 1e6).toFixed(2));
console.log(`NLR colocation reconstruction, ${days} days at 1 min, 1 replica, targets 60 % and 80 %\n`);
console.log('| variant | target | mean MW | p99 MW | peak MW | ramp 1 min MW | ramp 1 h MW | LDC 1 % / 10 % / 50 % MW | wait h |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { name, scenario } of sensitivityVariants(days, [0.6, 0.8])) {
  for (const l of runScenarioInline(scenario)) {
    console.log(
      `| ${name} | ${Math.round(l.target_utilization * 100)} % | ${mw(l.mean_w)} | ${mw(l.p99_w)} | ${mw(l.peak_w)} | ${mw(l.ramp_1min_w)} | ${mw(l.ramp_1h_w)} | ${mw(l.ldc_w[1]!)} / ${mw(l.ldc_w[10]!)} / ${mw(l.ldc_w[50]!)} | ${l.queue_wait_mean_h.toFixed(2)} |`,
    );
  }
}
