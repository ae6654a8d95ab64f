// `caplab cluster` input errors and a machine without Slurm: clear messages, the right exit codes, nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let plan: string;

beforeAll(() => {
  tmp = tempDir('caplab-cluster-cli-');
  env = { CAPLAB_DATA_DIR: tmp.dir, CAPLAB_DB: join(tmp.dir, 'lab.db'), CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim') };
  plan = join(tmp.dir, 'plan.yaml');
  writeFileSync(plan, 'name: p\nbackend: sim\nworkloads: [{ id: vit_l_16 }]\ncaps: { adaptive: { from: 200, to: 500, step: 100 } }\ncluster: { shard_by: caps }\n');
});
afterAll(() => tmp.cleanup());

describe('caplab cluster: bad input and no Slurm', () => {
  it('names what is wrong and exits 2', async () => {
    const noNodes = await runCli(['cluster', 'submit', plan, '--dry-run'], env);
    expect(noNodes.code).toBe(2);
    expect(noNodes.stderr).toMatch(/--nodes N is required/);
    const adaptive = await runCli(['cluster', 'submit', plan, '--nodes', '2', '--dry-run'], env);
    expect(adaptive.code).toBe(2);
    expect(adaptive.stderr).toMatch(/shard_by: caps cannot split adaptive caps/);
    const badPartition = await runCli(['cluster', 'submit', 'resources/plans/demo-sim.yaml', '--nodes', '2', '--partition', 'gpu;reboot', '--dry-run'], env);
    expect(badPartition.code).toBe(2);
    expect(badPartition.stderr).toMatch(/--partition "gpu;reboot"/);
    const unknown = await runCli(['cluster', 'status', '4242'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no cluster job "4242"/);
    const sub = await runCli(['cluster', 'frobnicate'], env);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/unknown subcommand "frobnicate"/);
  });

  it('without sbatch on PATH, submit says so (exit 4, a missing tool) after writing the job folder it would submit', async () => {
    const dir = join(tmp.dir, 'job');
    const r = await runCli(['cluster', 'submit', 'resources/plans/demo-sim.yaml', '--nodes', '2', '--dir', dir], { ...env, PATH: '/nonexistent' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/sbatch not found on PATH/);
    expect(existsSync(join(dir, 'job.sbatch'))).toBe(true);
  });
});
