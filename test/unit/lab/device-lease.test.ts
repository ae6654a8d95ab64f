import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { acquireLease, LeaseHeldError, probeLease, type LeaseOwner } from '../../../src/main/lab/lease/device-lease';

const env = { ...process.env, CAPLAB_LEASE_NS: `${process.env.CAPLAB_LEASE_NS}-unit` };
const owner = (sweep: number | null): LeaseOwner => ({ pid: process.pid, host: 'h', sweep_id: sweep, db: '/x/lab.db', purpose: 'sweep', since: 0, device: 'GPU 0' });

describe('device lease', () => {
  it('is exclusive: a second taker is told who holds it; the holder can change what it says; release frees it', async () => {
    const lease = await acquireLease('gpu:A', owner(null), env);
    lease.update({ sweep_id: 7 });
    const err = await acquireLease('gpu:A', owner(8), env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as LeaseHeldError).owner).toMatchObject({ pid: process.pid, sweep_id: 7, db: '/x/lab.db' });
    expect((err as Error).message).toBe(`GPU 0 is in use by sweep 7 of pid ${process.pid} (database /x/lab.db)`);
    expect(await probeLease('gpu:B', env)).toBeNull();
    await lease.release();
    expect(await probeLease('gpu:A', env)).toBeNull();
    (await acquireLease('gpu:A', owner(9), env)).release();
  });

  it('is freed by the kernel when its holder is killed with SIGKILL', { timeout: 30_000 }, async () => {
    const script = `const { acquireLease } = await import(${JSON.stringify(join(process.cwd(), 'src/main/lab/lease/device-lease.ts'))});
      await acquireLease('gpu:K', { pid: process.pid, host: 'h', sweep_id: 1, db: 'd', purpose: 'sweep', since: 0, device: 'K' }, process.env);
      console.log('held'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout!.on('data', (d) => String(d).includes('held') && resolve()));
    expect((await probeLease('gpu:K', env))?.owner?.pid).toBe(child.pid);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    expect(await probeLease('gpu:K', env)).toBeNull();
    (await acquireLease('gpu:K', owner(2), env)).release();
  });
});
