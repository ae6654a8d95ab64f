// How the NLR colocation reconstruction's peaks, p99, ramps and load-duration curve move with job-size and profile
// assumptions (docs/facility.md). `npx tsx bench/facility-sensitivity.ts [DAYS]` prints a markdown table.
import { readFacilityFile } from '../src/main/lab/facility/config-file';
import { runScenarioInline } from '../src/core/facility/run';
import type { FacilityConfig, JobType } from '../src/shared/facility';
import type { ScenarioInput } from '../src/core/facility/model';

const days = Number(process.argv[2] ?? 91);
const base = readFacilityFile('resources/facility/nlr-colocation.yaml').find((s) => s.name === 'baseline')!;
const flat = (w: number): JobType['profile'] => ({ t_s: [0, 60], power_w: [w, w], time_col: 't_s', power_col: 'power_W', units: 'W', nodes: 1, node_overhead_w: 0 });
const withJobs = (f: (j: JobType) => JobType): Partial<FacilityConfig> => ({ jobs: base.config.jobs.map(f) });

const variants: [string, Partial<FacilityConfig>][] = [
  ['reconstruction (1-16 nodes, built-in profiles)', {}],
  ['all jobs 1 node', withJobs((j) => ({ ...j, nodes: { dist: 'fixed', value: 1 } }))],
  ['large jobs (16-128 nodes)', withJobs((j) => ({ ...j, nodes: { dist: 'choice', values: [16, 32, 64, 128], weights: [0.4, 0.3, 0.2, 0.1] } }))],
  ['flat 2,500 W profile', withJobs((j) => ({ ...j, profile: flat(2500) }))],
  ['durations x4 (same node-hours/day)', withJobs((j) => ({ ...j, duration_h: j.duration_h.dist === 'lognormal' ? { ...j.duration_h, median: j.duration_h.median * 4, max: (j.duration_h.max ?? 24) * 4 } : j.duration_h }))],
  ['flat arrivals (no day/week/month shape)', { arrivals: { hour_of_day: Array(24).fill(1), weekday: Array(7).fill(1), month: Array(12).fill(1) } }],
  ['backfill instead of FIFO', { allocation: 'backfill' }],
];

const mw = (w: number | null) => (w === null ? '–' : (w / 1e6).toFixed(2));
console.log(`NLR colocation reconstruction, ${days} days at 1 min, 1 replica, targets 60 % and 80 %\n`);
console.log('| variant | target | mean MW | p99 MW | peak MW | ramp 1 min MW | ramp 1 h MW | LDC 1 % / 10 % / 50 % MW | wait h |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [name, over] of variants) {
  const sc: ScenarioInput = { ...base, config: { ...base.config, ...over, horizon_days: days, replicas: 1, targets: [0.6, 0.8] } };
  for (const l of runScenarioInline(sc)) {
    console.log(
      `| ${name} | ${Math.round(l.target_utilization * 100)} % | ${mw(l.mean_w)} | ${mw(l.p99_w)} | ${mw(l.peak_w)} | ${mw(l.ramp_1min_w)} | ${mw(l.ramp_1h_w)} | ${mw(l.ldc_w[1]!)} / ${mw(l.ldc_w[10]!)} / ${mw(l.ldc_w[50]!)} | ${l.queue_wait_mean_h.toFixed(2)} |`,
    );
  }
}
