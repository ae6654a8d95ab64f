// What a sweep refuses before touching a GPU, and how fast it lets go of one: real CLI and host processes,
// real SQLite files, simulated GPUs.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv, setSimLimit, simLimit, waitFor, writePlan } from '../helpers/lab-env';
import { parsePlan } from '../../src/main/lab/sweep/plan-file';
import { Engine } from '../../src/main/lab/engine';

const tmp = tempDir('caplab-guards-');
afterAll(() => tmp.cleanup());

const hugePlan = { backend: 'sim', workloads: [{ id: 'resnet50' }], caps: { from: 1, to: 1e15, step: 1 } };

/** Processes whose environment names this simulated GPU folder: everything a sweep on it started. */
function processesOf(simDir: string): number[] {
  const needle = Buffer.from(`CAPLAB_SIM_STATE_DIR=${simDir}\0`);
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid).flatMap((n) => {
    try {
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      return readFileSync(`/proc/${n}/environ`).includes(needle) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z' ? [Number(n)] : [];
    } catch {
      return [];
    }
  });
}

describe('bad input never reaches the GPU', () => {
  it('bad parameters (negative batch, shell text in a number, unknown key) and duplicate devices: exit 2, nothing written, limit untouched', async () => {
    const dir = join(tmp.dir, 'params');
    const env = labEnv(dir, 'lab');
    await setSimLimit(env, 633, ['h100-sxm', 'h100-sxm']);
    const cases: [string, string, RegExp][] = [
      ['negative', 'workloads: [{id: resnet50, params: {batch_size: -5}}]\ncaps: [300]', /workloads\.0\.params\.batch_size: must be an integer between 1 and \d+, got -5/],
      ['shell', "workloads: [{id: resnet50, params: {batch_size: '64; rm -rf ~'}}]\ncaps: [300]", /workloads\.0\.params\.batch_size: must be an integer/],
      ['unknown', 'workloads: [{id: resnet50, params: {bogus: 1}}]\ncaps: [300]', /workloads\.0\.params\.bogus: unknown parameter/],
      ['devices', 'devices: [0, 0]\nworkloads: [{id: resnet50}]\ncaps: [300]', /devices: a device is listed twice/],
    ];
    for (const [name, body, message] of cases) {
      const r = await runCli(['sweep', writePlan(dir, name, `backend: sim\n${body}\nsim: {speedup: 20}\n`)], env);
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(await simLimit(env)).toBe(633);
    }
    // The plan is checked before the database is opened: none is created, so nothing is journalled either.
    expect(existsSync(env.CAPLAB_DB!)).toBe(false);
  });

  it('a 1e15-step plan is rejected in under a second with exit 2, and no database is created', async () => {
    const started = performance.now();
    expect(() => parsePlan(hugePlan)).toThrow(/would make .* runs .* at most 10,000|at most 100000 W/);
    expect(performance.now() - started).toBeLessThan(1000);
    const dir = join(tmp.dir, 'huge');
    const env = labEnv(dir, 'lab');
    const cliStarted = performance.now();
    const r = await runCli(['sweep', writePlan(dir, 'huge', JSON.stringify(hugePlan))], env);
    // The whole CLI process, start-up included (about 0.5 s on an idle machine); generous for a loaded one.
    console.log(`CLI: 1e15-step plan refused in ${(performance.now() - cliStarted).toFixed(0)} ms`);
    expect(performance.now() - cliStarted).toBeLessThan(10_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/caps\.to: at most 100000 W/);
    expect(existsSync(env.CAPLAB_DB!)).toBe(false);
  });

  it('through the host: a 1e15-step plan is refused at once (validate and start), oversized bodies get 413, unknown ids 404, and the host keeps serving', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'host');
    const env = labEnv(dir, 'lab');
    const serve = startCli(['serve', '--api-only', '--backend', 'sim', '--port', '0'], env);
    let out = '';
    serve.child.stdout!.on('data', (d) => (out += d));
    try {
      await waitFor('serve to print its URL', () => /serving at (\S+)/.test(out));
      const url = new URL(/serving at (\S+)/.exec(out)![1]!);
      const token = decodeURIComponent(/#token=(.+)$/.exec(url.hash)![1]!);
      const call = (method: string, body: unknown) =>
        fetch(`${url.origin}/api/${method}`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
      const started = performance.now();
      const v = await call('validatePlan', { plan: hugePlan });
      expect(v.status).toBe(200);
      const verdict = (await v.json()) as { ok: boolean; errors: string[] };
      expect(verdict.ok).toBe(false);
      expect(verdict.errors.join('\n')).toMatch(/caps\.to: at most 100000 W/);
      const s = await call('startSweep', { plan: hugePlan });
      expect(s.status).toBeGreaterThanOrEqual(400);
      console.log(`host: 1e15-step plan refused twice in ${(performance.now() - started).toFixed(0)} ms`);
      expect(existsSync(env.CAPLAB_DB!) ? (new Database(env.CAPLAB_DB!, { readonly: true }).prepare('SELECT COUNT(*) n FROM sweeps').get() as { n: number }).n : 0).toBe(0);
      const big = await call('validatePlan', `{"plan": "${'x'.repeat(5 * 1024 * 1024)}"}`);
      expect(big.status).toBe(413);
      expect(((await big.json()) as { error: string }).error).toMatch(/over 4194304 bytes/);
      expect((await call('getSweep', { sweep_id: 424242 })).status).toBe(404);
      expect((await call('getRunTraces', { run_id: 424242 })).status).toBe(404);
      expect((await call('health', {})).status).toBe(200);
    } finally {
      serve.child.kill('SIGINT');
      expect((await serve.done).code).toBe(0);
    }
  });

  it('serve --host 0.0.0.0 warns that the token travels in cleartext', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'anyhost');
    const serve = startCli(['serve', '--api-only', '--backend', 'sim', '--port', '0', '--host', '0.0.0.0'], labEnv(dir, 'lab'));
    let out = '';
    serve.child.stdout!.on('data', (d) => (out += d));
    await waitFor('serve to print its URL', () => /serving at/.test(out));
    serve.child.kill('SIGINT');
    const r = await serve.done;
    expect(r.stderr).toMatch(/WARNING: listening on 0\.0\.0\.0/);
    expect(r.stderr).toMatch(/plain HTTP: the token and everything else travel in cleartext/);
  });

  it('an unknown simulated GPU preset is a plain error naming it (exit 2, no stack trace)', async () => {
    const dir = join(tmp.dir, 'preset');
    const r = await runCli(['sweep', writePlan(dir, 'p', 'backend: sim\nworkloads: [{id: resnet50}]\ncaps: [300]\nsim: {devices: [h900]}\n')], labEnv(dir, 'lab'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/sim\.devices\.0: unknown simulated GPU preset "h900" \(known: .*h100-sxm/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a database of a newer CapLab is refused without being changed (no WAL switch, no -wal/-shm files)', async () => {
    const dir = join(tmp.dir, 'newer');
    const env = labEnv(dir, 'lab');
    const file = env.CAPLAB_DB!;
    mkdirSync(dir, { recursive: true });
    const d = new Database(file);
    d.exec('CREATE TABLE future (x); PRAGMA user_version = 99');
    d.close();
    const before = readFileSync(file);
    const r = await runCli(['runs'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/schema version 99 is newer than this CapLab/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`) || existsSync(`${file}-shm`)).toBe(false);
    expect(statSync(file).size).toBe(before.length);
  });

  it('caplab runs shows control characters of a sweep name escaped, never raw', async () => {
    const dir = join(tmp.dir, 'ctrl');
    const env = labEnv(dir, 'lab');
    const engine = await Engine.open({ dbPath: env.CAPLAB_DB!, env: { ...process.env, ...env } });
    const sweep = await engine.beginSweep({ name: 'evil\u001b[2J\u0007name', backend: 'sim', workloads: [{ id: 'resnet50' }], caps: [300], observe_only: true, warmup: { seconds: 2 }, window: { seconds: 2 }, cooldown_s: 0, sim: { speedup: 50 } });
    await sweep.done;
    await engine.close();
    const r = await runCli(['runs'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('evil\\u001b[2J\\u0007name');
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});

describe('letting go of the GPU', () => {
  it('SIGTERM restores the limit of a 10,000-run sweep at once, before any other bookkeeping', { timeout: 120_000 }, async () => {
    const dir = join(tmp.dir, 'sigterm');
    const env = labEnv(dir, 'lab');
    await setSimLimit(env, 644);
    const plan = writePlan(dir, 'big', 'backend: sim\nworkloads: [{id: resnet50}]\ncaps: {from: 200, to: 699.95, step: 0.05}\nwarmup: {seconds: 30}\nwindow: {seconds: 60}\nsim: {speedup: 5}\n');
    const sweep = startCli(['sweep', plan, '--json'], env);
    await waitFor('the first cap', async () => (await simLimit(env)) === 200);
    const sent = performance.now();
    sweep.child.kill('SIGTERM');
    await waitFor('the restored limit', async () => (await simLimit(env)) === 644, 30_000);
    const restoredMs = performance.now() - sent;
    const r = await sweep.done;
    console.log(`SIGTERM -> limit restored in ${restoredMs.toFixed(0)} ms; process ended after ${(performance.now() - sent).toFixed(0)} ms`);
    expect(r.code).toBe(143);
    const out = JSON.parse(r.stdout) as { status: string; runs: unknown[]; restored: { ok: boolean }[] };
    expect(out.status).toBe('cancelled');
    expect(out.runs).toHaveLength(10_000);
    expect(out.restored).toEqual([expect.objectContaining({ before_w: 644, ok: true })]);
    // Generous for a loaded machine; the restore itself is one set call queued right behind the signal.
    expect(restoredMs).toBeLessThan(5000);
  });

  it('a daemon a workload leaves behind (fork -> setsid -> fork) is ended at run end', { timeout: 120_000 }, async () => {
    const dir = join(tmp.dir, 'daemon');
    const env = { ...process.env, ...labEnv(dir, 'lab') };
    const engine = await Engine.open({ dbPath: env.CAPLAB_DB!, env });
    try {
      const sweep = await engine.beginSweep({ backend: 'sim', workloads: [{ id: 'resnet50', params: { daemon: true } }], caps: [300, 400], warmup: { seconds: 5 }, window: { seconds: 5 }, cooldown_s: 0, sim: { speedup: 20 } });
      let seenDaemon = false;
      const watcher = setInterval(() => {
        if (processesOf(env.CAPLAB_SIM_STATE_DIR!).length > 1) seenDaemon = true;
      }, 100);
      expect(await sweep.done).toBe('done');
      clearInterval(watcher);
      expect(seenDaemon).toBe(true);
      expect(processesOf(env.CAPLAB_SIM_STATE_DIR!)).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});
