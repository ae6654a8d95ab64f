// Issue 25, finding 8: checking a plan changes nothing. Validating plans that name other simulated presets (a
// template, presets typed in the designer) used to rewrite the host's simulated GPUs: the Devices page and
// `caplab devices` then showed an MI300X, an H200 or four GPUs that do not exist instead of the H100.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer } from '../../src/main/host/server';
import { statePath } from '../../src/main/lab/gpu/sim-state';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const plan = (presets: string[], caps: number[] = [300, 500]) => ({ backend: 'sim', devices: presets.map((_, i) => i), workloads: [{ id: 'vit_l_16' }], caps, sim: { devices: presets } });

/** Every file of the simulated GPUs' state directory with its bytes and modification time. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else out[p] = `${s.mtimeMs} ${readFileSync(p, 'utf8')}`;
    }
  };
  walk(dir);
  return out;
}

describe('checking a plan changes nothing', () => {
  it('validatePlan with other simulated presets leaves the host GPUs as they were (engine)', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'engine');
    const env = { ...process.env, CAPLAB_SIM_STATE_DIR: join(dir, 'sim'), CAPLAB_DATA_DIR: dir };
    const engine = await Engine.open({ dbPath: join(dir, 'lab.db'), env });
    try {
      // Nothing exists yet: a check must not create the state either.
      expect((await engine.validatePlan({ plan: plan(['mi300x']) })).ok).toBe(true);
      expect(existsSync(statePath(env.CAPLAB_SIM_STATE_DIR))).toBe(false);

      const before = await engine.listDevices({ backend: 'sim' });
      expect(before.devices.filter((d) => d.kind === 'gpu').map((d) => d.name)).toEqual(['NVIDIA H100 80GB HBM3 (simulated)']);
      const files = snapshot(env.CAPLAB_SIM_STATE_DIR);

      // Each plan is still checked against the devices it would run on: 750 W is in the MI300X's range, not the H100's.
      const mi = await engine.validatePlan({ plan: plan(['mi300x'], [300, 750]) });
      expect(mi.ok).toBe(true);
      const h200 = await engine.validatePlan({ plan: plan(['h200'], [300, 750]) });
      expect(h200.issues.find((i) => i.path === 'caps')?.message).toMatch(/750 W is outside the allowed range of NVIDIA H200 \(simulated\)/);
      expect((await engine.validatePlan({ plan: plan(['rtx-4090'], [300]) })).ok).toBe(true);
      expect((await engine.validatePlan({ plan: plan(['h100-sxm', 'h100-sxm', 'h100-sxm', 'h100-sxm']) })).ok).toBe(true);
      // The same through the engine's own check (what startSweep and the CLI run first).
      expect((await engine.checkPlan(plan(['a100-sxm'], [300]))).issues).toEqual([]);

      expect(snapshot(env.CAPLAB_SIM_STATE_DIR)).toEqual(files);
      const after = await engine.listDevices({ backend: 'sim' });
      expect(after.devices).toEqual(before.devices);
      // `caplab devices` (another process) sees the H100 alone.
      const cli = await runCli(['devices', '--backend', 'sim', '--json'], { CAPLAB_SIM_STATE_DIR: env.CAPLAB_SIM_STATE_DIR, CAPLAB_DATA_DIR: dir });
      expect(cli.code).toBe(0);
      const listed = JSON.parse(cli.stdout) as { kind: string; name: string }[];
      expect(listed.filter((d) => d.kind === 'gpu').map((d) => d.name)).toEqual(['NVIDIA H100 80GB HBM3 (simulated)']);
    } finally {
      await engine.close();
    }
  });

  it('validatePlan over the real HTTP host leaves listDevices as it was', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'http');
    const env = { ...process.env, CAPLAB_SIM_STATE_DIR: join(dir, 'sim'), CAPLAB_DATA_DIR: dir };
    const engine = await Engine.open({ dbPath: join(dir, 'lab.db'), env });
    const server = await startServer({ engine, port: 0, staticDir: null });
    const post = (method: string, body: unknown) =>
      new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: server.port, path: `/api/${method}`, method: 'POST', headers: { Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    try {
      const before = await post('listDevices', { backend: 'sim' });
      expect(before.status).toBe(200);
      for (const presets of [['mi300x'], ['h200'], ['rtx-4090'], ['h100-sxm', 'h100-sxm', 'h100-sxm', 'h100-sxm']]) {
        const v = await post('validatePlan', { plan: plan(presets, [300]) });
        expect(v.status).toBe(200);
        expect(v.json.ok).toBe(true);
      }
      const after = await post('listDevices', { backend: 'sim' });
      expect(after.json.devices).toEqual(before.json.devices);
      expect((after.json.devices as { kind: string; name: string }[]).filter((d) => d.kind === 'gpu').map((d) => d.name)).toEqual(['NVIDIA H100 80GB HBM3 (simulated)']);
    } finally {
      await server.close();
      await engine.close();
    }
  });
});
