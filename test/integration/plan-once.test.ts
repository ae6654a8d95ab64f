// Issue 26: a plan is read once. `caplab sweep` used to check a plan three times and open the GPU backend three
// times (the CLI's check, the engine's, then the device check on a third backend); startSweep twice each. The real
// simulated backend and the plan check write a line to CAPLAB_TRACE_FILE each time they run, in whichever process
// runs them: the CLI as a child process, the HTTP host over a real SQLite database here.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer } from '../../src/main/host/server';
import { runCli } from '../helpers/cli';
import { hostPoster } from '../helpers/host-post';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const plan = { name: 'once', backend: 'sim', workloads: [{ id: 'resnet50' }], caps: [300, 500], warmup: { seconds: 2 }, window: { seconds: 2 }, cooldown_s: 0, sim: { speedup: 50, devices: ['h200'] } };

/** How often each traced step ran since the last call (the trace file is emptied). */
function steps(file: string): Record<string, number> {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  rmSync(file, { force: true });
  const out: Record<string, number> = {};
  for (const line of text.split('\n').filter(Boolean)) {
    const { event } = JSON.parse(line) as { event: string };
    out[event] = (out[event] ?? 0) + 1;
  }
  return out;
}

function labEnv(name: string) {
  const dir = join(tmp.dir, name);
  return { dir, trace: join(dir, 'trace.jsonl'), env: { CAPLAB_DATA_DIR: dir, CAPLAB_SIM_STATE_DIR: join(dir, 'sim'), CAPLAB_DB: join(dir, 'lab.db'), CAPLAB_LEASE_DIR: join(dir, 'leases'), CAPLAB_TRACE_FILE: join(dir, 'trace.jsonl') } };
}

describe('a plan is read once', () => {
  it('caplab sweep checks the plan once and opens the backend once, and the sweep runs on it', { timeout: 120_000 }, async () => {
    const { dir, trace, env } = labEnv('cli');
    const file = join(tmp.dir, 'once.json');
    writeFileSync(file, JSON.stringify(plan));
    // The plan's H200 is not set up by the check (look only) but by the sweep on the same backend.
    const r = await runCli(['sweep', file, '--backend', 'sim', '--json'], env);
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { status: string; runs: { status: string; cap_w: number }[] };
    expect(out.status).toBe('done');
    expect(out.runs.map((x) => [x.cap_w, x.status]).sort()).toEqual([[300, 'done'], [500, 'done']]);
    expect(steps(trace)).toEqual({ 'plan.check': 1, 'backend.open': 1 });
    expect(readFileSync(join(dir, 'sim', 'sim-gpus.json'), 'utf8')).toMatch(/"preset": "h200"/);

    const check = await runCli(['sweep', file, '--backend', 'sim', '--check', '--json'], env);
    expect(check.code).toBe(0);
    expect((JSON.parse(check.stdout) as { ok: boolean; run_count: number }).run_count).toBe(2);
    expect(steps(trace)).toEqual({ 'plan.check': 1, 'backend.open': 1 });

    // A bad plan: refused after that one check, with its problems at their fields, before a database exists.
    const bad = join(tmp.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...plan, caps: [300, 900], workloads: [{ id: 'resnet50', params: { batch_size: -1 } }] }));
    const refused = await runCli(['sweep', bad, '--backend', 'sim', '--db', join(dir, 'none.db')], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/workloads\.0\.params\.batch_size: /);
    expect(refused.stderr).toMatch(/caps: 900 W is outside the allowed range of NVIDIA H200/);
    expect(existsSync(join(dir, 'none.db'))).toBe(false);
    expect(steps(trace)).toEqual({ 'plan.check': 1, 'backend.open': 1 });
  });

  it('startSweep and validatePlan over the HTTP host each check once and open the backend once', { timeout: 120_000 }, async () => {
    const { dir, trace, env } = labEnv('http');
    const engine = await Engine.open({ dbPath: join(dir, 'lab.db'), env: { ...process.env, ...env } });
    const server = await startServer({ engine, port: 0, staticDir: null });
    const post = hostPoster(server);
    try {
      const v = await post('validatePlan', { plan });
      expect(v.json.ok).toBe(true);
      expect(steps(trace)).toEqual({ 'plan.check': 1, 'backend.open': 1 });

      const bad = await post('validatePlan', { plan: { ...plan, workloads: [{ id: 'resnet50', params: { batch_size: -1 } }] } });
      expect(bad.json.ok).toBe(false);
      expect((bad.json.issues as { path: string }[]).map((i) => i.path)).toEqual(['workloads.0.params.batch_size']);
      expect(steps(trace)).toEqual({ 'plan.check': 1, 'backend.open': 1 });

      const started = await post('startSweep', { plan });
      expect(started.status).toBe(200);
      const id = started.json.sweep_id as number;
      for (let status = ''; status !== 'done'; await new Promise((r) => setTimeout(r, 200))) {
        status = ((await post('getSweep', { sweep_id: id })).json.sweep as { status: string }).status;
        expect(['running', 'done']).toContain(status);
      }
      const { runs } = (await post('getSweep', { sweep_id: id })).json as { runs: { status: string }[] };
      expect(runs.map((x) => x.status)).toEqual(['done', 'done']);
      expect(steps(trace)).toEqual({ 'plan.check': 1, 'backend.open': 1 });
    } finally {
      await server.close();
      await engine.close();
    }
  });
});
