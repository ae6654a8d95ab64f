// The NLR colocation reconstruction with one assumption changed at a time: what bench/facility-sensitivity.ts
// tabulates for docs/facility.md and test/unit/facility/sensitivity.test.ts checks the direction of.
import { readFacilityFile } from '../src/main/lab/facility/config-file';
import type { FacilityConfig, JobType } from '../src/shared/facility';
import type { ScenarioInput } from '../src/core/facility/model';

export type VariantName = 'reconstruction' | 'one-node' | 'large-jobs' | 'flat-profile' | 'long-jobs' | 'flat-arrivals' | 'backfill';

/** The shipped reconstruction's baseline scenario and its variants, each for `days` days at the given targets, 1 replica. */
export function sensitivityVariants(days: number, targets: number[]): { key: VariantName; name: string; scenario: ScenarioInput }[] {
  const base = readFacilityFile('resources/facility/nlr-colocation.yaml').find((s) => s.name === 'baseline')!;
  const flat = (w: number): JobType['profile'] => ({ t_s: [0, 60], power_w: [w, w], time_col: 't_s', power_col: 'power_W', units: 'W', nodes: 1, node_overhead_w: 0 });
  const withJobs = (f: (j: JobType) => JobType): Partial<FacilityConfig> => ({ jobs: base.config.jobs.map(f) });
  const variants: [VariantName, string, Partial<FacilityConfig>][] = [
    ['reconstruction', 'reconstruction (1-16 nodes, built-in profiles)', {}],
    ['one-node', 'all jobs 1 node', withJobs((j) => ({ ...j, nodes: { dist: 'fixed', value: 1 } }))],
    ['large-jobs', 'large jobs (16-128 nodes)', withJobs((j) => ({ ...j, nodes: { dist: 'choice', values: [16, 32, 64, 128], weights: [0.4, 0.3, 0.2, 0.1] } }))],
    ['flat-profile', 'flat 2,500 W profile', withJobs((j) => ({ ...j, profile: flat(2500) }))],
    ['long-jobs', 'durations x4 (same node-hours/day)', withJobs((j) => ({ ...j, duration_h: j.duration_h.dist === 'lognormal' ? { ...j.duration_h, median: j.duration_h.median * 4, max: (j.duration_h.max ?? 24) * 4 } : j.duration_h }))],
    ['flat-arrivals', 'flat arrivals (no day/week/month shape)', { arrivals: { hour_of_day: Array(24).fill(1), weekday: Array(7).fill(1), month: Array(12).fill(1) } }],
    ['backfill', 'backfill instead of FIFO', { allocation: 'backfill' }],
  ];
  return variants.map(([key, name, over]) => ({ key, name, scenario: { ...base, config: { ...base.config, ...over, horizon_days: days, replicas: 1, targets } } }));
}
