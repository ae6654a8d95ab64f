// Who may change and restore a device's limit, with several CapLab processes and databases on one host: real CLI
// processes, real SQLite files, simulated GPUs whose limits live in a shared state file.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { runCli, startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv, setSimLimit, simLimit, waitFor, writePlan } from '../helpers/lab-env';

const tmp = tempDir('caplab-own-');
afterAll(() => tmp.cleanup());

/** A sweep that holds its cap for a while: 2 runs of ~3 s each at a speed-up of 20. */
const slowPlan = (caps: number[]) => `backend: sim
workloads: [{id: resnet50}]
caps: [${caps.join(', ')}]
warmup: {seconds: 20}
window: {seconds: 40}
cooldown_s: 0
sim: {speedup: 20, devices: [h100-sxm]}
`;

function journalFiles(env: NodeJS.ProcessEnv): string[] {
  const dir = join(env.CAPLAB_LEASE_DIR!, 'journal');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
}

function openRows(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('SELECT COUNT(*) n FROM cap_journal WHERE restored_at IS NULL').get() as { n: number }).n;
  } finally {
    d.close();
  }
}

describe('limits are owned: one sweep per device, restores only of dead owners', () => {
  it('a second sweep on a leased device refuses before touching anything (exit 2, naming pid, sweep and database); the first is never disturbed', { timeout: 180_000 }, async () => {
    const dir = join(tmp.dir, 'two');
    const a = labEnv(dir, 'a');
    const b = labEnv(dir, 'b');
    await setSimLimit(a, 610);
    const first = startCli(['sweep', writePlan(dir, 'first', slowPlan([300, 400])), '--json'], a);
    await waitFor('the first sweep to set its cap', async () => (await simLimit(a)) === 300);
    // The same database and another database: both refused, nothing written to the second one.
    for (const env of [a, b]) {
      const second = await runCli(['sweep', writePlan(dir, 'second', slowPlan([500])), '--json'], env);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`in use by sweep \\d+ of pid ${first.child.pid} \\(database .*a\\.db\\)`));
      expect(second.stdout).toBe('');
      expect([300, 400]).toContain(await simLimit(a));
    }
    expect(existsSync(b.CAPLAB_DB!) ? openRows(b.CAPLAB_DB!) : 0).toBe(0);
    const r = await first.done;
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { runs: { cap_w: number; mean_power_w: number; enforced_limit_w: number }[] };
    // Every run measured at its own cap: no interleaving.
    for (const run of out.runs) {
      expect(run.enforced_limit_w).toBe(run.cap_w);
      expect(run.mean_power_w).toBeLessThanOrEqual(run.cap_w * 1.03 + 5);
    }
    expect(await simLimit(a)).toBe(610);
    expect(journalFiles(a)).toEqual([]);
  });

  it('sweep --wait waits for the device and then runs', { timeout: 180_000 }, async () => {
    const dir = join(tmp.dir, 'wait');
    const env = labEnv(dir, 'a');
    await setSimLimit(env, 620);
    const first = startCli(['sweep', writePlan(dir, 'first', slowPlan([300])), '--json'], env);
    await waitFor('the first sweep to set its cap', async () => (await simLimit(env)) === 300);
    const second = await runCli(['sweep', writePlan(dir, 'second', slowPlan([450])), '--wait', '--json'], { ...env, CAPLAB_DB: join(dir, 'other.db') });
    expect((await first.done).code).toBe(0);
    expect(second.stderr).toMatch(/waiting: .* in use by sweep \d+ of pid/);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).runs[0].enforced_limit_w).toBe(450);
    expect(await simLimit(env)).toBe(620);
  });

  it('read-only commands, restore-caps, an observe-only sweep and a serve start/stop during a CLI sweep never restore its device', { timeout: 180_000 }, async () => {
    const dir = join(tmp.dir, 'readonly');
    const env = labEnv(dir, 'a');
    await setSimLimit(env, 630);
    const sweep = startCli(['sweep', writePlan(dir, 'long', `${slowPlan([350])}repetitions: 8\n`), '--json'], env);
    await waitFor('the sweep to set its cap', async () => (await simLimit(env)) === 350);
    for (const args of [['runs', '--json'], ['devices', '--backend', 'sim', '--json'], ['restore-caps', '--json'], ['workloads', '--json']]) {
      const r = await runCli(args, env);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr).not.toMatch(/restored|interrupted/);
      if (args[0] === 'restore-caps') expect(JSON.parse(r.stdout)).toEqual([]);
      expect(await simLimit(env)).toBe(350);
    }
    const observe = await runCli(['sweep', writePlan(dir, 'observe', slowPlan([350]).replace('caps:', 'observe_only: true\ncaps:')), '--json'], { ...env, CAPLAB_DB: join(dir, 'observe.db') });
    expect(observe.code).toBe(0);
    expect(observe.stderr).toMatch(/is being capped by sweep \d+ of pid \d+/);
    expect(JSON.parse(observe.stdout).notices[0]).toMatch(/observe-only sweep records that sweep's caps/);
    expect(await simLimit(env)).toBe(350);

    const serve = startCli(['serve', '--api-only', '--backend', 'sim', '--port', '0'], env);
    let served = '';
    serve.child.stdout!.on('data', (d) => (served += d));
    await waitFor('serve to listen', () => /serving at/.test(served));
    serve.child.kill('SIGINT');
    const stopped = await serve.done;
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(/serving at/);
    expect(stopped.stderr).not.toMatch(/restored/);
    expect(await simLimit(env)).toBe(350);
    expect(journalFiles(env)).toHaveLength(1);

    const r = await sweep.done;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).runs.every((x: { status: string }) => x.status === 'done')).toBe(true);
    expect(await simLimit(env)).toBe(630);
  });

  it('after kill -9 of the owner, another process with another database restores the pre-sweep limit and closes the owner database\'s journal', { timeout: 180_000 }, async () => {
    const dir = join(tmp.dir, 'kill');
    const a = labEnv(dir, 'a');
    const b = labEnv(dir, 'b');
    await setSimLimit(a, 640);
    const sweep = startCli(['sweep', writePlan(dir, 'slow', slowPlan([250, 450]))], a);
    await waitFor('the second cap', async () => (await simLimit(a)) === 450);
    sweep.child.kill('SIGKILL');
    await sweep.done;
    expect(await simLimit(a)).toBe(450);
    expect(openRows(a.CAPLAB_DB!)).toBe(1);
    const restore = await runCli(['restore-caps', '--json'], b);
    expect(restore.code).toBe(0);
    expect(JSON.parse(restore.stdout)).toEqual([expect.objectContaining({ before_w: 640, was_w: 450, restored_w: 640, ok: true })]);
    expect(await simLimit(a)).toBe(640);
    expect(openRows(a.CAPLAB_DB!)).toBe(0);
    expect(journalFiles(a)).toEqual([]);
    expect(JSON.parse((await runCli(['restore-caps', '--json'], a)).stdout)).toEqual([]);
  });
});
