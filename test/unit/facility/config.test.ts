import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { facilityFromYaml, FacilityConfigError } from '../../../src/main/lab/facility/config-file';
import { buildModel } from '../../../src/core/facility/model';
import { runScenarioInline } from '../../../src/core/facility/run';
import { openDb } from '../../../src/main/lab/store/db';
import { upsertDevice } from '../../../src/main/lab/store/devices';
import { writeSamples } from '../../../src/main/lab/store/samples';
import { addSegment, createDataset } from '../../../src/main/lab/store/datasets';
import { createSweep, recordRunDevice, updateRun } from '../../../src/main/lab/store/sweeps';
import { Plan } from '../../../src/shared/plan';
import { scheduleRuns } from '../../../src/core/schedule';
import type { DeviceInfo, Sample } from '../../../src/shared/device';
import { tempDir } from '../../helpers/tmp';
import { smallTraining } from './helpers';
import { issueLines, planIssuesOf } from '../../../src/main/lab/input/issues';

const simGpu = (index: number): DeviceInfo => ({
  id: `sim:${index}`, index, backend: 'sim', kind: 'gpu', name: 'H100 SXM (simulated)', vendor: 'sim', simulated: true, uuid: `u${index}`, pci_bus_id: null, driver: null,
  vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
});
/** n readings of one device at 0.1 s from t0 at a constant power. */
const powerRows = (t0: number, n: number, w: number): Omit<Sample, 'device_id'>[] =>
  Array.from({ length: n }, (_, k) => ({ t: t0 + k * 0.1, power_w: w, power_kind: 'instant', power_avg_w: null, energy_mj: null, sm_clock_mhz: null, mem_clock_mhz: null, temp_c: null, util_gpu: null, util_mem: null, mem_used_mb: null, limit_w: 700, throttle_reasons: null }));

const load = (cfg: unknown, dir = '/nonexistent') => facilityFromYaml(stringify(cfg), { baseDir: dir, where: 'site.yaml' });
const withJob = (job: Record<string, unknown>) => ({ ...smallTraining, jobs: [{ ...smallTraining.jobs![0], ...job }] });
/** The message of what `fn` throws, after building the model (profile checks happen there). */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  return '(no error)';
}

describe('facility config: bad input names the config file and the field', () => {
  it('utilisation over 100 %', () => {
    expect(errorOf(() => load({ ...smallTraining, targets: [0.2, 1.2] }))).toBe('facility config site.yaml: targets[1]: utilisation is a fraction of nodes busy: at most 1 (100 %) (got 1.2)');
  });

  it('jobs larger than the pool', () => {
    expect(errorOf(() => load(withJob({ nodes: { dist: 'choice', values: [1, 400] } })))).toBe('facility config site.yaml: jobs[0].nodes: job type "ft" can ask for 400 nodes but the pool has 200');
  });

  it('empty profiles', () => {
    expect(errorOf(() => load(withJob({ profile: { t_s: [], power_w: [] } })))).toBe('facility config site.yaml: jobs[0].profile: the profile is empty (no power readings)');
  });

  it('negative rates', () => {
    const inf = {
      mode: 'inference', horizon_days: 1, step_s: 60, nodes: 10, idle_w: 400, rated_w: 3520, targets: [0.5],
      services: [{ name: 's', peak_rps: -3, day: Array(24).fill(1), rate_max: 5, max_instances: 10, power: { points: [[0, 1000], [5, 3000]] } }],
    };
    expect(errorOf(() => load(inf))).toBe('facility config site.yaml: services[0].peak_rps: peak_rps must be > 0 (got -3)');
    expect(errorOf(() => load({ ...inf, services: [{ ...inf.services[0], peak_rps: 3, power: { points: [[-1, 1000]] } }] }))).toBe(
      'facility config site.yaml: services[0].power.points[0][0]: rate must be >= 0 (got -1)',
    );
  });

  it('a profile in the wrong units', () => {
    const mW = { t_s: [0, 1, 2], power_w: [2.5e6, 2.6e6, 2.55e6] };
    expect(errorOf(() => load(withJob({ profile: mW })))).toMatch(/^facility config site\.yaml: jobs\[0\]\.profile: peaks at 2600000 W per node.*wrong units/);
    // Declaring the units fixes it.
    expect(() => buildModel(load(withJob({ profile: { ...mW, units: 'mW' } }))[0]!)).not.toThrow();
  });

  it('unknown fields by their whole path, several problems one per line, bad YAML, an unknown built-in, a scenario named', () => {
    expect(errorOf(() => load({ ...smallTraining, nodez: 3 }))).toBe('facility config site.yaml: unknown field nodez');
    expect(errorOf(() => load(withJob({ foo: 1 })))).toBe('facility config site.yaml: unknown field jobs[0].foo');
    expect(errorOf(() => load({ ...smallTraining, nodes: undefined, step_s: 0 }))).toBe('facility config site.yaml:\n  step_s must be >= 1 (got 0)\n  nodes is missing');
    expect(() => facilityFromYaml('mode: [', { baseDir: '.' })).toThrow(FacilityConfigError);
    expect(errorOf(() => facilityFromYaml('mode: [', { baseDir: '.', where: 'x.yaml' }))).toMatch(/^facility config x\.yaml: not valid YAML/);
    expect(errorOf(() => load(withJob({ profile: { builtin: 'gpt-9' } })))).toMatch(/^facility config site\.yaml: jobs\[0\]\.profile\.builtin: no built-in profile "gpt-9"/);
    const scenarios = [{ name: 'base' }, { name: 'capped', fleet_cap_w: 400, jobs: [{ ...smallTraining.jobs![0], profile: { t_s: [0, 1], power_w: [900, 950] } }] }];
    expect(errorOf(() => load({ ...smallTraining, scenarios }))).toBe(
      'facility config site.yaml: scenario "capped": jobs[0].at_caps: "ft" has no profile measured at fleet_cap_w 400 W (add at_caps: [{cap_w: 400, throughput, profile}])',
    );
  });

  it('time step from 1 s to 1 h and a horizon up to a year (366 days): both ends run, beyond them is named', () => {
    for (const [step_s, horizon_days] of [[1, 0.25], [3600, 366]] as const) {
      const [sc] = load({ ...smallTraining, step_s, horizon_days, targets: [0.3] });
      const levels = runScenarioInline(sc!);
      expect(levels[0]!.ldc_w).toHaveLength(101);
      expect(Math.abs(levels[0]!.utilization - 0.3)).toBeLessThan(0.03);
      // Ramps over windows shorter than the step are not defined.
      expect(levels[0]!.ramp_1min_w === null).toBe(step_s > 60);
    }
    expect(errorOf(() => load({ ...smallTraining, step_s: 3601 }))).toBe('facility config site.yaml: step_s must be <= 3600 (got 3601)');
    expect(errorOf(() => load({ ...smallTraining, horizon_days: 367 }))).toBe('facility config site.yaml: horizon_days is at most 366 (got 367)');
  }, 60_000);

  it('a plan keeps its own wording: labels and "(plan)" for the plan as a whole', () => {
    const r = Plan.safeParse({ name: 'x', backend: 'sim', workloads: [{ id: 'w' }], caps: [300], repetitions: 0, foo: 1 });
    expect(r.success).toBe(false);
    const lines = issueLines(planIssuesOf(r.error!.issues, {}));
    expect(lines).toContain('(plan): The plan has unknown field foo');
    expect(lines.some((l) => /^repetitions: Repetitions must be at least 1/.test(l))).toBe(true);
  });

  it('a CSV profile with a missing column names the column and the file', () => {
    const tmp = tempDir();
    try {
      writeFileSync(join(tmp.dir, 'p.csv'), 'time,watts\n0,1000\n1,2000\n');
      expect(errorOf(() => load(withJob({ profile: { csv: 'p.csv' } }), tmp.dir))).toMatch(/jobs\[0\]\.profile\.time_col: p\.csv has no column "t_s" \(columns: time, watts\)/);
      const sc = load(withJob({ profile: { csv: 'p.csv', time_col: 'time', power_col: 'watts', units: 'W' } }), tmp.dir)[0]!;
      expect(sc.config.jobs[0]!.profile.power_w).toEqual([1000, 2000]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('facility config: scenarios and sources', () => {
  it('merges scenario overrides over the base, objects one level deep', () => {
    const scs = load({ ...smallTraining, overheads: { pue: 1.2, fixed_w: 5 }, scenarios: [{ name: 'base' }, { name: 'hot', overheads: { pue: 1.5 } }, { name: 'cap', fleet_cap_w: 400 }] });
    expect(scs.map((s) => s.name)).toEqual(['base', 'hot', 'cap']);
    expect(scs[1]!.config.overheads).toMatchObject({ pue: 1.5, fixed_w: 5 });
    expect(scs[2]!.config.fleet_cap_w).toBe(400);
    expect(errorOf(() => load({ ...smallTraining, scenarios: [{ name: 'bad', step_s: 0 }] }))).toBe('facility config site.yaml: scenarios[0] (bad): step_s must be >= 1 (got 0)');
  });

  it('builds a node profile from a run recorded by CapLab (devices summed, overhead added)', () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'lab.db');
      const db = openDb(file);
      const plan = Plan.parse({ workloads: [{ id: 'vit_l_16' }], caps: [700], repetitions: 1 });
      const { sweepId, runIds } = createSweep(db, { name: 'a', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan));
      updateRun(db, runIds[0]!, { status: 'done', started_at: 5000, ended_at: 5010 });
      for (const i of [0, 1]) {
        const id = upsertDevice(db, 'h', simGpu(i));
        recordRunDevice(db, runIds[0]!, id, { energy_j: null, mean_power_w: null, energy_sensor: null, enforced_limit_w: 700 });
        writeSamples(db, { sweep_id: sweepId }, id, powerRows(5000, 50, 300 + 100 * i));
      }
      db.close();
      const sc = load(withJob({ profile: { run: { db: 'lab.db', run_id: runIds[0]! }, node_overhead_w: 250 } }), tmp.dir)[0]!;
      const p = sc.config.jobs[0]!.profile;
      expect(p.t_s).toHaveLength(50);
      expect(p.t_s![1]).toBeCloseTo(0.1, 6);
      expect(p.power_w![0]).toBe(700);
      // node_overhead_w is added when the model is built.
      const m = buildModel(sc);
      expect(m.kind === 'training' && m.m.types[0]!.profile.values[0]).toBeCloseTo(950, 6);
      expect(errorOf(() => load(withJob({ profile: { run: { db: 'lab.db', run_id: 999 } } }), tmp.dir))).toMatch(/jobs\[0\]\.profile\.run\.run_id: no run 999/);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('facility config: profile from an imported dataset segment', () => {
  it('sums the GPUs and CPU packages in the segment window (stored segment or dataset window), names a missing segment or device', () => {
    const tmp = tempDir();
    try {
      const db = openDb(join(tmp.dir, 'lab.db'));
      const datasetId = createDataset(db, { name: 'job 4711', source: 'job4711.csv', format: 'dcgm-csv' });
      for (const i of [0, 1]) writeSamples(db, { dataset_id: datasetId }, upsertDevice(db, 'node7', simGpu(i)), powerRows(1000, 200, 250 + 200 * i));
      const cpu: DeviceInfo = { ...simGpu(0), id: 'rapl:0', backend: 'rapl', kind: 'cpu', name: 'package-0', uuid: null };
      writeSamples(db, { dataset_id: datasetId }, upsertDevice(db, 'node7', cpu), powerRows(1000, 200, 100));
      const segmentId = addSegment(db, { dataset_id: datasetId, start: 1005, end: 1010 });
      db.close();
      const profile = (segment: Record<string, unknown>) => load(withJob({ profile: { segment: { db: 'lab.db', ...segment } } }), tmp.dir)[0]!.config.jobs[0]!.profile;
      const stored = profile({ segment_id: segmentId });
      // 1005..1010 s at 0.1 s: 51 readings, both GPUs and the CPU package summed, time from the window start.
      expect(stored.t_s).toHaveLength(51);
      expect(stored.t_s![50]).toBeCloseTo(5, 6);
      expect(stored.power_w!.every((w) => w === 800)).toBe(true);
      const window = profile({ dataset_id: datasetId, start: 1000, end: 1002, device_keys: ['node7/sim:1/u1'] });
      expect(window.t_s).toHaveLength(21);
      expect(window.power_w![0]).toBe(450);
      expect(errorOf(() => profile({ segment_id: 99 }))).toMatch(/jobs\[0\]\.profile\.segment\.segment_id: no dataset segment 99 in .*lab\.db/);
      expect(errorOf(() => profile({ dataset_id: datasetId, start: 1000, end: 1002, device_keys: ['node7/sim:5/u5'] }))).toMatch(
        /jobs\[0\]\.profile\.segment\.device_keys: dataset 1 has no samples of node7\/sim:5\/u5/,
      );
      expect(errorOf(() => profile({ dataset_id: datasetId, start: 5000, end: 6000 }))).toMatch(/jobs\[0\]\.profile\.segment: dataset 1 between 5000 and 6000 has no power samples/);
      expect(errorOf(() => profile({ dataset_id: datasetId }))).toMatch(/segment_id, or dataset_id with start and end/);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('facility config: rate_max from a serving rate sweep', () => {
  const inf = (from: Record<string, unknown>) => ({
    mode: 'inference', horizon_days: 1, step_s: 60, nodes: 10, idle_w: 400, rated_w: 3520, targets: [0.5],
    services: [{ name: 's', peak_rps: 30, day: Array(24).fill(1), rate_max_from: from, max_instances: 10, power: { builtin: 'llama3-70b-serving' } }],
  });
  const files = ['vllm-rate-2.txt', 'vllm-rate-4.txt', 'vllm-rate-6.txt', 'vllm-rate-8.txt'];
  const dir = join(process.cwd(), 'test/fixtures/facility');

  it('takes the highest request rate whose latency statistic meets the limit (vLLM bench serve outputs)', () => {
    // p99 E2E latency 2,950 / 3,311 / 4,420 / 5,103 ms at 2 / 4 / 6 / 8 req/s.
    expect(load(inf({ files, limit_ms: 5000 }), dir)[0]!.config.services[0]!.rate_max).toBe(6);
    expect(load(inf({ files, limit_ms: 6000 }), dir)[0]!.config.services[0]!.rate_max).toBe(8);
    expect(load(inf({ files, metric: 'ttft', stat: 'p99', limit_ms: 300 }), dir)[0]!.config.services[0]!.rate_max).toBe(8);
    expect(errorOf(() => load(inf({ files, limit_ms: 1000 }), dir))).toMatch(/services\[0\]\.rate_max_from: no benchmark meets p99 e2e latency <= 1000 ms \(lowest: 2950\.4 ms\)/);
    expect(errorOf(() => load(inf({ files: ['nope.txt'], limit_ms: 1000 }), dir))).toMatch(/services\[0\]\.rate_max_from\.files: cannot read nope\.txt: ENOENT/);
    expect(errorOf(() => load({ ...inf({ files, limit_ms: 1 }), services: [{ ...inf({}).services[0], rate_max_from: undefined }] }, dir))).toMatch(/: services\[0\]\.rate_max: give exactly one of rate_max or rate_max_from$/);
  });
});
