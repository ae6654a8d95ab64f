// Cluster sweeps against a real Slurm (Debian's slurm-wlm + munge): a two-node cluster on this host, started and
// stopped here. Each virtual node has its own simulated GPUs (state keyed by SLURMD_NODENAME).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { slurmUnavailable, startSlurm, type SlurmCluster } from '../helpers/daemons';
import { scheduleRuns } from '../../src/core/schedule';
import { Plan, type PlanInput } from '../../src/shared/plan';
import type { CollectResult, ClusterStatus, TaskResult } from '../../src/shared/cluster';

const unavailable = slurmUnavailable();
const H100_DEFAULT_W = 700;

let tmp: ReturnType<typeof tempDir>;
let slurm: SlurmCluster;
let env: NodeJS.ProcessEnv;

const basePlan = (over: Partial<PlanInput>): PlanInput => ({
  name: 'cluster test',
  backend: 'sim',
  devices: [0],
  workloads: [{ id: 'vit_l_16', params: { batch_size: 128 } }],
  caps: [300],
  repetitions: 1,
  warmup: { seconds: 5 },
  window: { seconds: 10 },
  cooldown_s: 0,
  sample_interval_ms: 200,
  sim: { speedup: 50, devices: ['h100-sxm'] },
  ...over,
});

function writePlan(name: string, plan: PlanInput): string {
  const file = join(tmp.dir, `${name}.json`);
  // JSON is YAML: the plan file reader takes it as is.
  writeFileSync(file, JSON.stringify(plan));
  return file;
}

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args, env);
  if (r.code !== 0) throw new Error(`caplab ${args.join(' ')} exited ${r.code}:\n${r.stderr}\n${slurm.logs()}`);
  return r.stdout;
}

/** The node's simulated GPU 0 limit, as its state file (the node's "driver") holds it. */
function nodeLimit(node: string): number | null {
  const f = join(tmp.dir, 'nodes', node, 'sim', 'sim-gpus.json');
  if (!existsSync(f)) return null;
  return (JSON.parse(readFileSync(f, 'utf8')) as { devices: { limit_w: number }[] }).devices[0]!.limit_w;
}

function taskResult(jobDir: string, task: number): TaskResult | null {
  const f = join(jobDir, 'results', `task-${task}.json`);
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as TaskResult) : null;
}

async function until<T>(what: string, f: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 150_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) {
      const queue = execFileSync('squeue', ['-h', '-r', '-o', '%i %T %N %r'], { env }).toString();
      throw new Error(`timed out waiting for ${what}\nsqueue:\n${queue}\n${slurm.logs()}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

const status = async (job: string) => JSON.parse(await cli(['cluster', 'status', job, '--json'])) as ClusterStatus;
const squeueCount = (job: string) => execFileSync('squeue', ['-h', '-r', '-j', job], { env }).toString().trim().split('\n').filter(Boolean).length;

describe.skipIf(unavailable !== null)(`cluster sweeps on a real Slurm${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    tmp = tempDir('caplab-slurm-');
    const sdir = join(tmp.dir, 'slurm');
    mkdirSync(sdir);
    slurm = await startSlurm(sdir, ['n1', 'n2']);
    env = {
      ...slurm.env,
      CAPLAB_DATA_DIR: join(tmp.dir, 'lab'),
      CAPLAB_DB: join(tmp.dir, 'lab', 'lab.db'),
      CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'lab', 'sim'),
      // The nodes' local state (database + journal, simulated GPUs) under the test's folder.
      CAPLAB_NODE_DIR: join(tmp.dir, 'nodes'),
    };
  }, 90_000);

  afterAll(async () => {
    await slurm?.stop();
    tmp?.cleanup();
  }, 90_000);

  it('a 4-task array completes and collect gives one sweep whose runs equal the plan\'s, with the nodes recorded', { timeout: 240_000 }, async () => {
    const input = basePlan({ name: 'by caps', caps: [200, 300, 400, 500], cluster: { shard_by: 'caps' } });
    const file = writePlan('by-caps', input);
    const jobDir = join(tmp.dir, 'jobs', 'by-caps');
    const dry = await cli(['cluster', 'submit', file, '--nodes', '2', '--dir', jobDir, '--dry-run']);
    expect(dry).toMatch(/^#SBATCH --array=0-3%2$/m);
    expect(existsSync(jobDir)).toBe(false);

    const sub = JSON.parse(await cli(['cluster', 'submit', file, '--nodes', '2', '--dir', jobDir, '--json'])) as { job_id: string; tasks: number };
    expect(sub.tasks).toBe(4);
    // The submitted script is the dry run's, but for the time it was written.
    const undated = (script: string) => script.replace(/ on \d{4}-\S+Z\./, '');
    expect(undated(readFileSync(join(jobDir, 'job.sbatch'), 'utf8'))).toBe(undated(dry));

    // Partial results are visible while the job runs (collect does not wait for it).
    await until('a first finished run', () => taskResult(jobDir, 0)?.runs.some((r) => r.run.status === 'done'));
    const partial = JSON.parse(await cli(['cluster', 'collect', sub.job_id, '--json'])) as CollectResult;
    expect(partial.runs_done).toBeGreaterThanOrEqual(1);

    const final = await until('the job to finish', async () => {
      const s = await status(sub.job_id);
      return s.state !== 'running' && s.state !== 'pending' && s;
    });
    expect(final.state).toBe('done');
    expect(final.tasks.map((t) => t.state)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']);

    const c = JSON.parse(await cli(['cluster', 'collect', sub.job_id, '--json'])) as CollectResult;
    expect(c.sweep_id).toBe(partial.sweep_id);
    expect(c.status).toBe('done');
    const runs = (JSON.parse(await cli(['runs', '--sweep', String(c.sweep_id), '--json'])) as { runs: { workload: string; cap_w: number; repetition: number; status: string; efficiency: number; node: string }[] }[])[0]!.runs;
    const key = (r: { workload: string; cap_w: number; repetition: number }) => `${r.workload}@${r.cap_w}#${r.repetition}`;
    expect(runs.map(key).sort()).toEqual(scheduleRuns(Plan.parse(input)).map(key).sort());
    expect(runs.every((r) => r.status === 'done' && r.efficiency > 0 && ['n1', 'n2'].includes(r.node))).toBe(true);
    // Every node's hostname, GPUs and driver; the virtual nodes' simulated GPUs are distinct devices.
    for (const n of c.nodes) {
      expect(['n1', 'n2']).toContain(n.node);
      expect(n.hostname.length).toBeGreaterThan(0);
      expect(n.gpus[0]).toMatch(new RegExp(`SIM-${n.node}-h100-sxm-0`));
      expect(n.drivers).toEqual(['caplab-sim']);
    }

    // Idempotent: collecting again changes nothing.
    const again = JSON.parse(await cli(['cluster', 'collect', sub.job_id, '--json'])) as CollectResult;
    expect(again).toMatchObject({ sweep_id: c.sweep_id, runs: 4, runs_done: 4, changed: 0 });

    const nodes = JSON.parse(await cli(['cluster', 'nodes', String(c.sweep_id), '--json'])) as { groups: { caps: { cap_w: number }[]; nodes: string[] }[] };
    expect(nodes.groups[0]!.caps.map((x) => x.cap_w)).toEqual([200, 300, 400, 500]);
    // The analysis reads each run's samples back from its node's stream of the merged sweep (the block store).
    const analysis = JSON.parse(await cli(['analyze', String(c.sweep_id), '--json'])) as { runs: { gpu_energy_j: number | null }[] };
    expect(analysis.runs).toHaveLength(4);
    expect(analysis.runs.every((r) => r.gpu_energy_j !== null && r.gpu_energy_j > 0)).toBe(true);
    expect(nodeLimit('n1') ?? H100_DEFAULT_W).toBe(H100_DEFAULT_W);
    expect(nodeLimit('n2') ?? H100_DEFAULT_W).toBe(H100_DEFAULT_W);
  });

  it('cancel mid-run: every node restores its own simulated limit', { timeout: 240_000 }, async () => {
    // Long runs (window 1000 simulated s at 5x, 200 s of wall time): both tasks are still mid-run when the cancel
    // comes even when Slurm starts the second task half a minute after the first on a loaded machine.
    const file = writePlan('cancel', basePlan({ name: 'cancel', caps: [250], window: { seconds: 1000 }, sim: { speedup: 5, devices: ['h100-sxm'] } }));
    const jobDir = join(tmp.dir, 'jobs', 'cancel');
    const sub = JSON.parse(await cli(['cluster', 'submit', file, '--nodes', '2', '--dir', jobDir, '--json'])) as { job_id: string };
    await until('both nodes at the 250 W cap', () => nodeLimit('n1') === 250 && nodeLimit('n2') === 250);
    const r = JSON.parse(await cli(['cluster', 'cancel', sub.job_id, '--wait', '--json'])) as { remaining: number };
    expect(r.remaining).toBe(0);
    expect(nodeLimit('n1')).toBe(H100_DEFAULT_W);
    expect(nodeLimit('n2')).toBe(H100_DEFAULT_W);
    for (const t of [0, 1]) {
      const res = taskResult(jobDir, t)!;
      expect(res.status).toBe('cancelled');
      expect(res.restored).toEqual([expect.objectContaining({ before_w: H100_DEFAULT_W, was_w: 250, restored_w: H100_DEFAULT_W, ok: true })]);
    }
    const c = JSON.parse(await cli(['cluster', 'collect', sub.job_id, '--json'])) as CollectResult;
    expect(c.status).toBe('cancelled');
  });

  it('a task killed with SIGKILL leaves its limit, and the next start on that node restores it', { timeout: 240_000 }, async () => {
    // Partition `first` is node n1 alone; two repetitions -> two tasks, one at a time (--nodes 1).
    const file = writePlan('kill', basePlan({ name: 'kill', caps: [260], repetitions: 2, window: { seconds: 200 }, sim: { speedup: 5, devices: ['h100-sxm'] }, cluster: { shard_by: 'repetitions' } }));
    const jobDir = join(tmp.dir, 'jobs', 'kill');
    const sub = JSON.parse(await cli(['cluster', 'submit', file, '--nodes', '1', '--partition', 'first', '--dir', jobDir, '--json'])) as { job_id: string };
    await until('task 0 at the 260 W cap', () => nodeLimit('n1') === 260 && taskResult(jobDir, 0)?.status === 'running');
    // --batch: SIGKILL to the batch step itself (the task's caplab process), with no SIGTERM before it.
    execFileSync('scancel', ['--signal=KILL', '--batch', `${sub.job_id}_0`], { env });
    const next = await until('task 1 to start on n1', () => {
      const t = taskResult(jobDir, 1);
      return t && t.status !== 'starting' && t;
    });
    expect(taskResult(jobDir, 0)!.status).toBe('running');
    expect(next.node).toBe('n1');
    expect(next.restored_at_open).toEqual([expect.objectContaining({ before_w: H100_DEFAULT_W, was_w: 260, restored_w: H100_DEFAULT_W, ok: true })]);
    await cli(['cluster', 'cancel', sub.job_id, '--wait']);
    expect(squeueCount(sub.job_id)).toBe(0);
    expect(nodeLimit('n1')).toBe(H100_DEFAULT_W);
    const c = JSON.parse(await cli(['cluster', 'collect', sub.job_id, '--json'])) as CollectResult;
    expect(c.status).not.toBe('done');
  });
});
