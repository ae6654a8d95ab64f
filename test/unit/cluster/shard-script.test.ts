import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shardPlan, ShardError } from '../../../src/core/cluster/shard';
import { renderScript, sbatchValue } from '../../../src/main/lab/cluster/script';
import { parseTable } from '../../../src/main/lab/cluster/slurm';
import { planFromYaml, planToYaml } from '../../../src/main/lab/sweep/plan-file';
import { scheduleRuns } from '../../../src/core/schedule';
import { Plan, type PlanInput } from '../../../src/shared/plan';

const plan = (over: Partial<PlanInput> = {}) =>
  Plan.parse({ name: "o'brien's sweep", backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [200, 300, 400, 500], repetitions: 3, order: 'randomized', ...over });

const key = (r: { workload: string; cap_w: number; repetition: number }) => `${r.workload}@${r.cap_w}#${r.repetition}`;

describe('shardPlan', () => {
  it('node: every task runs the whole plan', () => {
    const shards = shardPlan(plan(), 3);
    expect(shards).toHaveLength(3);
    for (const s of shards) expect(scheduleRuns(s.plan).length).toBe(12);
  });

  it('caps and repetitions: the shards together run exactly the plan\'s runs', () => {
    for (const by of ['caps', 'repetitions'] as const) {
      const p = plan({ cluster: { shard_by: by } });
      const shards = shardPlan(p, 2);
      expect(shards).toHaveLength(by === 'caps' ? 4 : 3);
      const union = shards.flatMap((s) => scheduleRuns(s.plan).map((r) => ({ ...r, repetition: r.repetition + s.repetition_offset })));
      expect(union.map(key).sort()).toEqual(scheduleRuns(p).map(key).sort());
    }
  });

  it('refuses adaptive caps split by cap, and a node count that is not a whole number or is beyond any cluster (1e9 would list 1e9 shards)', () => {
    expect(() => shardPlan(plan({ caps: { adaptive: { from: 200, to: 500, step: 100 } }, cluster: { shard_by: 'caps' } }), 2)).toThrow(ShardError);
    expect(() => shardPlan(plan(), 0)).toThrow(/--nodes/);
    expect(() => shardPlan(plan(), 1e9)).toThrow(/--nodes must be a whole number from 1 to 10000, got 1000000000/);
    expect(shardPlan(plan(), 10_000)).toHaveLength(10_000);
  });
});

describe('renderScript', () => {
  const p = plan({ cluster: { shard_by: 'caps' } });
  const script = renderScript({
    name: p.name,
    jobDir: "/shared/jobs/it's here",
    nodes: 2,
    shardBy: 'caps',
    shards: shardPlan(p, 2),
    partition: 'gpu',
    gpusPerNode: '4',
    time: '01:00:00',
    account: 'proj-1',
    caplab: ['/usr/bin/node', '/opt/caplab/bin/caplab.mjs'],
    workloadsDir: '/home/u/.local/share/caplab/workloads',
    version: '0.1.0',
    createdAt: new Date('2026-01-01T00:00:00Z'),
  });

  it('is an sbatch array with the options asked for, one task per shard, at most N at once', () => {
    expect(script).toMatch(/^#SBATCH --array=0-3%2$/m);
    for (const line of ['#SBATCH --partition=gpu', '#SBATCH --gpus-per-node=4', '#SBATCH --time=01:00:00', '#SBATCH --account=proj-1', '#SBATCH --exclusive']) expect(script).toContain(line);
    expect(script).toContain("exec '/usr/bin/node' '/opt/caplab/bin/caplab.mjs' cluster task");
  });

  it('is valid bash whose shard_plan prints each shard\'s plan back intact', () => {
    const dir = mkdtempSync(join(tmpdir(), 'caplab-script-'));
    try {
      const file = join(dir, 'job.sbatch');
      // Everything but the final exec: define shard_plan, then print shard 2.
      writeFileSync(file, script.replace(/^exec .*$/m, '').replace(/^mkdir .*$/m, '').replace(/^shard_plan "\$TASK".*$/m, 'shard_plan 2'));
      const out = execFileSync('bash', [file], { env: { PATH: process.env.PATH, SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_JOB_ID: '7', CAPLAB_NODE_DIR: dir } }).toString();
      expect(planFromYaml(out)).toEqual(shardPlan(p, 2)[2]!.plan);
      expect(planToYaml(planFromYaml(out))).toBe(planToYaml(shardPlan(p, 2)[2]!.plan));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs the task with the submitting shell\'s workloads folder and job folder exactly, whatever characters they hold', () => {
    const dir = mkdtempSync(join(tmpdir(), 'caplab-script-'));
    try {
      const odd = join(dir, "w}s $HOME 'q' `x` \\ \"d\"");
      const jobDir = join(dir, 'job } $x');
      // The task's argv stands in for CapLab: a shell that prints the environment and arguments it was given.
      const s = renderScript({ name: 'odd', jobDir, nodes: 1, shardBy: 'node', shards: shardPlan(plan(), 1), caplab: ['/bin/sh', '-c', 'printf "%s\\n" "$CAPLAB_WORKLOADS_DIR" "$7"', 'sh'], workloadsDir: odd, version: '0.1.0', createdAt: new Date(0) });
      const file = join(dir, 'job.sbatch');
      writeFileSync(file, s);
      const out = execFileSync('bash', [file], { env: { PATH: process.env.PATH, SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_JOB_ID: '7', SLURMD_NODENAME: 'n1', CAPLAB_NODE_DIR: dir } }).toString();
      expect(out.split('\n').slice(0, 2)).toEqual([odd, join(jobDir, 'results', 'task-0.json')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses #SBATCH values that would smuggle shell syntax', () => {
    expect(() => sbatchValue('partition', 'gpu; rm -rf /')).toThrow(/--partition/);
  });
});

describe('squeue / sacct parsing', () => {
  it('reads split tasks, pending array ranges and skips job steps', () => {
    const tasks = parseTable('12_0|RUNNING|n1\n12_[2-3%2]|PENDING|\n12_1|COMPLETED|n2\n12_1.batch|COMPLETED|n2\n');
    expect(tasks).toEqual([
      { task: 0, state: 'RUNNING', node: 'n1' },
      { task: 2, state: 'PENDING', node: null },
      { task: 3, state: 'PENDING', node: null },
      { task: 1, state: 'COMPLETED', node: 'n2' },
    ]);
    expect(parseTable('12_4|CANCELLED by 0|n1')[0]!.state).toBe('CANCELLED');
  });
});
