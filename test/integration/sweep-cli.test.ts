import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { SimBackend } from '../../src/main/lab/gpu/sim';
import { openDb } from '../../src/main/lab/store/db';
import { readSamples, streamsOf } from '../../src/main/lab/store/sample-blocks';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
const simDir = () => join(tmp.dir, 'sim');
const limitOf = (index = 0) => new SimBackend({ stateDir: simDir() }).getPowerLimit(index);

beforeAll(() => {
  tmp = tempDir();
  env = { CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DB: join(tmp.dir, 'lab.db') };
});
afterAll(() => tmp.cleanup());

interface SweepJson {
  sweep_id: number;
  status: string;
  simulated: boolean;
  restored: { before_w: number; restored_w: number; ok: boolean }[];
  runs: { run_id: number; workload: string; cap_w: number; repetition: number; status: string; throughput: number; mean_power_w: number; energy_j: number; efficiency: number; energy_sensor: string }[];
}

describe('caplab sweep on the simulated backend (real pty, real SQLite)', () => {
  it('runs the demo plan end to end and restores the journalled limit', { timeout: 240_000 }, async () => {
    // A limit that is neither max nor default: restore must go back to exactly this.
    await new SimBackend({ stateDir: simDir(), presets: ['h100-sxm'] }).setPowerLimit(0, 650);
    const r = await runCli(['sweep', 'resources/plans/demo-sim.yaml', '--json'], env);
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as SweepJson;
    expect(out.status).toBe('done');
    expect(out.simulated).toBe(true);
    expect(out.runs).toHaveLength(12);
    for (const run of out.runs) {
      expect(run.status).toBe('done');
      expect(run.mean_power_w).toBeLessThanOrEqual(run.cap_w * 1.03 + 5);
      expect(run.energy_j).toBeGreaterThan(0);
      expect(run.energy_sensor).toBe('counter');
    }
    const mean = (cap: number, key: 'throughput' | 'efficiency') => {
      const xs = out.runs.filter((x) => x.cap_w === cap).map((x) => x[key]);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    // Published H100 ViT-L/16 images/s per cap (DOMAIN.md); the simulated device reproduces them within 5 %.
    const published: Record<number, number> = { 200: 116.4, 300: 214.9, 400: 259.0, 500: 280.05, 600: 297.79, 700: 305.97 };
    for (const [cap, ips] of Object.entries(published)) expect(Math.abs(mean(Number(cap), 'throughput') / ips - 1)).toBeLessThan(0.05);
    const caps = [200, 300, 400, 500, 600, 700];
    const best = caps.reduce((a, b) => (mean(b, 'efficiency') > mean(a, 'efficiency') ? b : a));
    expect(best).toBeGreaterThanOrEqual(300);
    expect(best).toBeLessThanOrEqual(500);
    expect(out.restored).toEqual([expect.objectContaining({ before_w: 650, restored_w: 650, ok: true })]);
    expect(await limitOf()).toBe(650);

    const db = openDb(env.CAPLAB_DB!, { readonly: true });
    const stream = streamsOf(db, { sweep_id: out.sweep_id })[0]!.stream_id;
    const samples = readSamples(db, stream, -Infinity, Infinity);
    const kinds = { instant: samples.filter((x) => x.power_kind === 'instant').length, counter: samples.filter((x) => x.power_kind === 'counter').length };
    // The sampler's instant readings, plus the energy counter read exactly at both edges of each run's window.
    expect(kinds.instant).toBeGreaterThan(1000);
    expect(kinds.counter).toBe(24);
    // A run's samples are its sweep's samples from its start to its end: both edge readings of every run are in
    // its own span, so run-scoped analysis sees the whole window.
    const runRows = db.prepare('SELECT id, started_at, ended_at FROM runs WHERE sweep_id = ?').all(out.sweep_id) as { id: number; started_at: number; ended_at: number }[];
    expect(runRows).toHaveLength(12);
    for (const r of runRows) expect(samples.filter((x) => x.power_kind === 'counter' && x.t >= r.started_at && x.t <= r.ended_at)).toHaveLength(2);
    db.close();

    const runs = await runCli(['runs', '--json', '--sweep', String(out.sweep_id)], env);
    const listed = JSON.parse(runs.stdout)[0].runs as { id: number; run_id: number }[];
    expect(listed).toHaveLength(12);
    // `caplab runs --json` names a run as `caplab sweep --json` does (run_id), keeping `id` beside it.
    for (const r of listed) expect(r.run_id).toBe(r.id);
    expect(listed.map((r) => r.run_id).sort()).toEqual(out.runs.map((r) => r.run_id).sort());
  });

  it('after kill -9 mid-sweep, the limit stays changed and restore-caps puts back the journalled value; samples up to the kill are stored', async () => {
    await new SimBackend({ stateDir: simDir(), presets: ['h100-sxm'] }).setPowerLimit(0, 610);
    const plan = join(tmp.dir, 'slow.yaml');
    writeFileSync(plan, 'backend: sim\nworkloads: [{id: resnet50}]\ncaps: [250, 350]\nwarmup: {seconds: 60}\nwindow: {seconds: 60}\nsim: {speedup: 1, devices: [h100-sxm]}\n');
    const { child, done } = startCli(['sweep', plan], env);
    // Wait until the cap is set and samples are flowing.
    const deadline = Date.now() + 30_000;
    while ((await limitOf()) !== 250 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await limitOf()).toBe(250);
    await new Promise((r) => setTimeout(r, 2500));
    const killedAt = Date.now() / 1000;
    child.kill('SIGKILL');
    await done;
    expect(await limitOf()).toBe(250);

    const db = new Database(env.CAPLAB_DB!, { readonly: true });
    const last = db.prepare('SELECT MAX(b.t1) t FROM sample_blocks b JOIN sample_streams s ON s.id = b.stream_id WHERE s.sweep_id = (SELECT MAX(id) FROM sweeps)').get() as { t: number };
    db.close();
    expect(killedAt - last.t).toBeLessThan(1.0);

    const restore = await runCli(['restore-caps', '--json'], env);
    expect(restore.code).toBe(0);
    expect(JSON.parse(restore.stdout)).toEqual([expect.objectContaining({ before_w: 610, was_w: 250, restored_w: 610, ok: true })]);
    expect(await limitOf()).toBe(610);
    const again = await runCli(['restore-caps', '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual([]);
    const runs = JSON.parse((await runCli(['runs', '--json'], env)).stdout) as { status: string }[];
    expect(runs[0]!.status).toBe('interrupted');
  });

  it('rejects bad plans before anything is written, naming the field or file', async () => {
    const db = join(tmp.dir, 'bad.db');
    const bad = join(tmp.dir, 'bad.yaml');
    writeFileSync(bad, 'backend: sim\nworkloads: [{id: no_such_workload}]\ncaps: [100, 300]\nsim: {devices: [h100-sxm]}\n');
    const r = await runCli(['sweep', bad, '--db', db], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('workloads.0.id: unknown workload "no_such_workload"');
    expect(r.stderr).toContain('caps: 100 W is outside the allowed range of');
    expect(r.stderr).toContain('200-700 W');
    // The plan is checked before the database is opened: none is created.
    expect(existsSync(db)).toBe(false);

    const malformed = await runCli(['sweep', join(tmp.dir, 'nope.yaml')], env);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('nope.yaml');

    writeFileSync(join(tmp.dir, 'file'), 'x');
    const unwritable = await runCli(['sweep', 'resources/plans/demo-sim.yaml', '--db', join(tmp.dir, 'file', 'lab.db')], env);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain(`cannot open database ${join(tmp.dir, 'file', 'lab.db')}`);
  });
});
