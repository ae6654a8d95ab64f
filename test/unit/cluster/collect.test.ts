// collectJob on result files written as array tasks write them (no Slurm needed for the merge itself).
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb, type Db } from '../../../src/main/lab/store/db';
import { runsOfSweep } from '../../../src/main/lab/store/sweeps';
import { CollectError, collectJob, readManifest } from '../../../src/main/lab/cluster/collect';
import { prepareJob } from '../../../src/main/lab/cluster/submit';
import { getJob, nodeOfRuns, registerJob } from '../../../src/main/lab/store/cluster-jobs';
import { devicesOfRun } from '../../../src/main/lab/store/devices';
import { samplesOfRun } from '../../../src/main/lab/store/samples';
import { streamExtent, streamsOf } from '../../../src/main/lab/store/sample-blocks';
import { Plan } from '../../../src/shared/plan';
import type { TaskResult, TaskRun } from '../../../src/shared/cluster';
import type { DeviceInfo } from '../../../src/shared/device';
import { tempDir } from '../../helpers/tmp';

let tmp: ReturnType<typeof tempDir> | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  tmp?.cleanup();
});

const gpu = (node: string): DeviceInfo => ({
  id: 'sim:0', index: 0, backend: 'sim', kind: 'gpu', name: 'NVIDIA H100 80GB HBM3 (simulated)', vendor: 'sim', simulated: true, uuid: `SIM-${node}-h100-sxm-0`,
  pci_bus_id: null, driver: 'caplab-sim', vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
});

function run(id: number, cap: number, status: 'done' | 'running' | 'pending', eff: number): TaskRun {
  const done = status === 'done';
  // A node runs its runs one after another: run `id` takes [100 id + 10, 100 id + 50].
  const at = (t: number) => 100 * id + t;
  return {
    run: {
      id, sweep_id: 1, workload: 'vit_l_16', cap_w: cap, repetition: 1, order: id - 1, status, exit_code: done ? 0 : null, error: null,
      started_at: done ? at(10) : null, ended_at: done ? at(50) : null, warmup_end: done ? at(20) : null, measure_start: done ? at(20) : null, measure_end: done ? at(50) : null,
      units: done ? 'images' : null, throughput: done ? 250 : null, mean_power_w: done ? cap - 5 : null, energy_j: done ? (cap - 5) * 30 : null,
      efficiency: done ? eff : null, energy_sensor: done ? 'counter' : null, enforced_limit_w: cap,
      units_in_window: done ? 250 * 30 : null, gpus: 1, cpu_energy_j: null, node_energy_source: null, reason: null, adaptive: null,
    },
    devices: done ? [{ index: 0, energy_j: (cap - 5) * 30, mean_power_w: cap - 5, energy_sensor: 'counter', enforced_limit_w: cap }] : [],
    samples: done ? [20, 35, 50].map((t) => ({ device_id: '0', index: 0, t: at(t), power_w: cap - 5, power_kind: 'instant' as const, power_avg_w: null, energy_mj: at(t) * 1000, sm_clock_mhz: 1500, mem_clock_mhz: 2619, temp_c: 60, util_gpu: 99, util_mem: 40, mem_used_mb: 1000, limit_w: cap, throttle_reasons: 4 })) : [],
    metrics: done ? [{ t: at(30), name: 'rate', value: 250 }] : [],
  };
}

function result(task: number, node: string, status: TaskResult['status'], runs: TaskRun[]): TaskResult {
  return { schema: 'caplab.cluster-task/1', task, slurm_job_id: `${100 + task}`, array_job_id: '99', node, hostname: 'host-a', backend: 'sim', simulated: true, devices: [gpu(node)], drivers: ['caplab-sim'], status, error: null, restored_at_open: [], restored: [], started_at: 1, updated_at: 2, runs };
}

describe('collectJob', () => {
  it('merges repetition shards into one sweep (repetitions renumbered, nodes kept), partially, then finally, idempotently', () => {
    tmp = tempDir('caplab-collect-');
    db = openDb(join(tmp.dir, 'lab.db'));
    const plan = Plan.parse({ name: 'reps', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300, 400], repetitions: 2, cluster: { shard_by: 'repetitions' } });
    const p = prepareJob(plan, { nodes: 2, dir: join(tmp.dir, 'job'), env: { CAPLAB_DATA_DIR: tmp.dir } });
    mkdirSync(join(p.dir, 'results'), { recursive: true });
    writeFileSync(join(p.dir, 'manifest.json'), JSON.stringify({ ...p.manifest, job_id: '99' }));
    registerJob(db, { job_id: '99', name: 'reps', dir: p.dir, shard_by: 'repetitions', tasks: 2, nodes: 2, submitted_at: 1 });
    const write = (r: TaskResult) => writeFileSync(join(p.dir, 'results', `task-${r.task}.json`), JSON.stringify(r));

    // While the job runs: task 0 has one run done, one running; task 1 has not written anything yet.
    write(result(0, 'n1', 'running', [run(1, 300, 'done', 0.6), run(2, 400, 'running', 0)]));
    const partial = collectJob(db, getJob(db, '99')!, true);
    expect(partial).toMatchObject({ status: 'running', runs: 2, runs_done: 1, tasks_found: 1, tasks: 2, changed: 2 });

    write(result(0, 'n1', 'done', [run(1, 300, 'done', 0.6), run(2, 400, 'done', 0.55)]));
    write(result(1, 'n2', 'done', [run(1, 300, 'done', 0.62), run(2, 400, 'done', 0.56)]));
    const final = collectJob(db, getJob(db, '99')!, false);
    expect(final).toMatchObject({ sweep_id: partial.sweep_id, status: 'done', runs: 4, runs_done: 4, tasks_found: 2, changed: 3 });
    const runs = runsOfSweep(db, final.sweep_id);
    expect(runs.map((r) => `${r.cap_w}#${r.repetition}`).sort()).toEqual(['300#1', '300#2', '400#1', '400#2']);
    const nodes = nodeOfRuns(db, final.sweep_id);
    expect(runs.map((r) => nodes.get(r.id)!.node).sort()).toEqual(['n1', 'n1', 'n2', 'n2']);
    // Each node's GPU is a stream of the merged sweep; each run reads its own three samples back through its window.
    const sampleCount = () => streamsOf(db!, { sweep_id: final.sweep_id }).reduce((n, s) => n + streamExtent(db!, s.stream_id).n, 0);
    expect(streamsOf(db, { sweep_id: final.sweep_id })).toHaveLength(2);
    expect(sampleCount()).toBe(12);
    for (const r of runs) {
      const ts = samplesOfRun(db, r.id, devicesOfRun(db, r.id)[0]!.id).map((x) => x.t);
      expect(ts).toHaveLength(3);
      expect(ts.every((t) => t >= r.started_at! && t <= r.ended_at!)).toBe(true);
    }

    const again = collectJob(db, getJob(db, '99')!, false);
    expect(again).toMatchObject({ sweep_id: final.sweep_id, runs: 4, changed: 0 });
    expect(sampleCount()).toBe(12);
  });

  it('a task killed mid-run: once the job is gone its unfinished run fails, the sweep fails and says which task', () => {
    tmp = tempDir('caplab-collect-');
    db = openDb(join(tmp.dir, 'lab.db'));
    const plan = Plan.parse({ name: 'kill', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300], cluster: { shard_by: 'node' } });
    const p = prepareJob(plan, { nodes: 2, dir: join(tmp.dir, 'job'), env: { CAPLAB_DATA_DIR: tmp.dir } });
    mkdirSync(join(p.dir, 'results'), { recursive: true });
    writeFileSync(join(p.dir, 'manifest.json'), JSON.stringify({ ...p.manifest, job_id: '7' }));
    registerJob(db, { job_id: '7', name: 'kill', dir: p.dir, shard_by: 'node', tasks: 2, nodes: 2, submitted_at: 1 });
    writeFileSync(join(p.dir, 'results', 'task-0.json'), JSON.stringify(result(0, 'n1', 'running', [run(1, 300, 'running', 0)])));
    const c = collectJob(db, getJob(db, '7')!, false);
    expect(c.status).toBe('failed');
    const [r] = runsOfSweep(db, c.sweep_id);
    expect(r).toMatchObject({ status: 'failed', error: expect.stringMatching(/interrupted/) });
    expect((db.prepare('SELECT error FROM sweeps WHERE id = ?').get(c.sweep_id) as { error: string }).error).toMatch(/no results from task\(s\) 1/);
  });

  it('a job folder whose manifest is cut short: an invalid-input error naming the file, not a bare JSON syntax error', () => {
    tmp = tempDir('caplab-collect-');
    const dir = join(tmp.dir, 'job');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'manifest.json'), '{"schema": "caplab.cluster-manifest/1", "job');
    // A CollectError is a LabError with code 'invalid': exit 2 in the CLI, 400 over HTTP.
    expect(() => readManifest(dir)).toThrow(CollectError);
    expect(() => readManifest(dir)).toThrow(new RegExp(`^${join(dir, 'manifest.json')} is not JSON: `));
  });
});
