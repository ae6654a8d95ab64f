// The Slurm epilog shipped in resources/slurm/ (docs/cluster.md): after a sweep is killed with SIGKILL, running
// the epilog as Slurm would restores the journalled limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLI, startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { SimBackend } from '../../src/main/lab/gpu/sim';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => void (tmp = tempDir('caplab-epilog-')));
afterAll(() => tmp.cleanup());

describe('resources/slurm/caplab-epilog.sh', () => {
  it('restores the limit a SIGKILLed sweep left, to the value before the sweep', { timeout: 120_000 }, async () => {
    const simDir = join(tmp.dir, 'sim');
    const sim = () => new SimBackend({ stateDir: simDir, presets: ['h100-sxm'] });
    await sim().setPowerLimit(0, 650);
    const plan = join(tmp.dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({ name: 'killed', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [320], warmup: { seconds: 5 }, window: { seconds: 300 }, sim: { speedup: 5 } }));
    const env = { CAPLAB_DATA_DIR: join(tmp.dir, 'data'), CAPLAB_DB: join(tmp.dir, 'lab.db'), CAPLAB_SIM_STATE_DIR: simDir };
    const sweep = startCli(['sweep', plan], env);
    const until = Date.now() + 60_000;
    while ((await sim().getPowerLimit(0)) !== 320) {
      if (sweep.child.exitCode !== null || Date.now() > until) throw new Error(`the sweep never set 320 W: ${(await sweep.done).stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    sweep.child.kill('SIGKILL');
    await sweep.done;
    expect(await sim().getPowerLimit(0)).toBe(320);

    // As slurmd runs it: a bare environment (the test's lease folder and namespace stand in for the node's).
    const log = join(tmp.dir, 'epilog.log');
    execFileSync('sh', [resolve('resources/slurm/caplab-epilog.sh')], {
      env: {
        PATH: process.env.PATH,
        CAPLAB_HOME: process.cwd(),
        NODE_BIN: process.execPath,
        CAPLAB_EPILOG_DB: join(tmp.dir, 'epilog.db'),
        CAPLAB_EPILOG_LOG: log,
        CAPLAB_LEASE_DIR: process.env.CAPLAB_LEASE_DIR,
        CAPLAB_LEASE_NS: process.env.CAPLAB_LEASE_NS,
        SLURM_JOB_ID: '77',
      },
    });
    expect(await sim().getPowerLimit(0)).toBe(650);
    expect(readFileSync(log, 'utf8')).toMatch(/650/);
    // Nothing left: a second run changes nothing and still exits 0.
    execFileSync('sh', [resolve('resources/slurm/caplab-epilog.sh')], { env: { PATH: process.env.PATH, CAPLAB_HOME: process.cwd(), NODE_BIN: process.execPath, CAPLAB_EPILOG_DB: join(tmp.dir, 'epilog.db'), CAPLAB_EPILOG_LOG: log, CAPLAB_LEASE_DIR: process.env.CAPLAB_LEASE_DIR, CAPLAB_LEASE_NS: process.env.CAPLAB_LEASE_NS } });
    expect(await sim().getPowerLimit(0)).toBe(650);
  });

  // Jobs run as their user; the epilog as root. CapLab trusts only entries its own user (or root) wrote, so the
  // epilog restores as the job's user. Needs root and a checkout that user can read; said when skipped.
  const asNobody = process.getuid?.() === 0 && spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'test', '-r', CLI]).status === 0;
  it.skipIf(!asNobody)('restores the limit a SIGKILLed sweep of another user left, running as the job\'s user (SLURM_JOB_USER)', { timeout: 120_000 }, async () => {
    const dir = join(tmp.dir, 'user');
    mkdirSync(dir, { recursive: true });
    chmodSync(tmp.dir, 0o777);
    chmodSync(dir, 0o777);
    const simDir = join(dir, 'sim');
    const sim = () => new SimBackend({ stateDir: simDir, presets: ['h100-sxm'] });
    await sim().setPowerLimit(0, 640);
    execFileSync('chmod', ['-R', 'a+rwX', simDir]);
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({ name: 'killed', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [330], warmup: { seconds: 5 }, window: { seconds: 300 }, sim: { speedup: 5 } }));
    const leases = join(dir, 'leases');
    const env = { ...process.env, HOME: dir, CAPLAB_DATA_DIR: join(dir, 'data'), CAPLAB_DB: join(dir, 'lab.db'), CAPLAB_SIM_STATE_DIR: simDir, CAPLAB_LEASE_DIR: leases };
    // setpriv execs in place (no parent left behind), so the SIGKILL reaches the sweep itself.
    const sweep = spawn('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, CLI, 'sweep', plan], { env, stdio: 'ignore' });
    const exited = new Promise((r) => sweep.on('close', r));
    const until = Date.now() + 60_000;
    while ((await sim().getPowerLimit(0)) !== 330) {
      if (sweep.exitCode !== null || Date.now() > until) throw new Error('the sweep of user nobody never set 330 W');
      await new Promise((r) => setTimeout(r, 200));
    }
    sweep.kill('SIGKILL');
    await exited;
    const journal = join(leases, 'journal');
    expect(statSync(journal).isDirectory()).toBe(true);

    const log = join(dir, 'epilog.log');
    const epilog = (user: string | undefined) =>
      execFileSync('sh', [resolve('resources/slurm/caplab-epilog.sh')], {
        env: { PATH: process.env.PATH, CAPLAB_HOME: process.cwd(), NODE_BIN: process.execPath, CAPLAB_EPILOG_LOG: log, CAPLAB_LEASE_DIR: leases, CAPLAB_LEASE_NS: process.env.CAPLAB_LEASE_NS, SLURM_JOB_ID: '78', ...(user ? { SLURM_JOB_USER: user } : {}) },
      });
    // Root alone leaves another user's entry alone (it could name any limit) ...
    epilog(undefined);
    expect(await sim().getPowerLimit(0)).toBe(330);
    // ... and restores it as that user.
    epilog('nobody');
    expect(await sim().getPowerLimit(0)).toBe(640);
  });
});
