// Issue 26: a startSweep refused for its plan's problems answers with each problem at its field (`issues`), beside
// the message text it always had, over the real browser host's HTTP API and the Electron IPC transport; nothing is
// written for the refused plan.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer } from '../../src/main/host/server';
import { createIpcTransport } from '../../src/main/host/ipc';
import { bridgeErrorText } from '../../src/shared/bridge-error';
import { apiErrorOfBridge } from '../../src/renderer/api/bridge-error';
import { ApiError } from '../../src/shared/api';
import { hostPoster } from '../helpers/host-post';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const env = { CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_LEASE_DIR: join(tmp.dir, 'leases') };

// A bad parameter, a GPU that does not exist and a cap over the H200's range: a plan the schema takes (so the
// checks past it run), refused by the device and workload checks.
const bad = { name: 'refused', backend: 'sim', devices: [0, 5], workloads: [{ id: 'resnet50', params: { batch_size: -1 } }], caps: [300, 900], warmup: { seconds: 1 }, window: { seconds: 1 }, cooldown_s: 0, sim: { speedup: 50, devices: ['h200'] } };

describe('a refused startSweep carries its issues', () => {
  it('answers 400 with the message text and every issue at its path, marked an error', { timeout: 60_000 }, async () => {
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env: { ...process.env, ...env } });
    const server = await startServer({ engine, port: 0, staticDir: null });
    const post = hostPoster(server);
    try {
      const r = await post('startSweep', { plan: bad });
      expect(r.status).toBe(400);
      const body = ApiError.parse(r.json);
      expect(body.code).toBe('invalid');
      // The message is what it was before issues existed: every problem on a line of its own.
      expect(body.error).toMatch(/^plan: invalid plan\n {2}/);
      expect(body.error).toMatch(/caps: 900 W is outside the allowed range of NVIDIA H200/);
      const at = Object.fromEntries((body.issues ?? []).map((i) => [i.path, i]));
      expect(Object.keys(at).sort()).toEqual(['caps', 'devices.1', 'workloads.0.params.batch_size']);
      expect(at['devices.1']!.message).toBe('no GPU with index 5 (available: 0)');
      expect(at.caps!.message).toMatch(/^900 W is outside the allowed range of NVIDIA H200/);
      for (const i of body.issues ?? []) {
        expect(i.severity).toBe('error');
        // Each issue is one of the message's lines.
        expect(body.error).toContain(i.message);
      }
      // validatePlan names the same fields for the same plan.
      const v = await post<{ issues: { path: string; severity?: string }[] }>('validatePlan', { plan: bad });
      expect(v.json.issues.map((i) => i.path).sort()).toEqual(Object.keys(at).sort());
      expect(new Set(v.json.issues.map((i) => i.severity))).toEqual(new Set(['error']));
      expect((await post<unknown[]>('listSweeps', {})).json).toEqual([]);

      // Electron: the IPC transport's answer, through the preload's message and the renderer's reading of it, is
      // the browser host's body.
      const ipc = await createIpcTransport(engine, () => true).call('file:///app/index.html', true, 'startSweep', { plan: bad });
      expect(ipc.ok).toBe(false);
      if (ipc.ok) return;
      expect(ipc.error).toEqual(body);
      expect(apiErrorOfBridge(`Error invoking remote method 'caplab:call': Error: ${bridgeErrorText(ipc.error)}`)).toEqual(body);
    } finally {
      await server.close();
      await engine.close();
    }
  });

  it('keeps issues off errors that are not a plan\'s: an unknown sweep', { timeout: 60_000 }, async () => {
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab2.db'), env: { ...process.env, ...env } });
    const server = await startServer({ engine, port: 0, staticDir: null });
    try {
      const r = await hostPoster(server)('getSweep', { sweep_id: 12345 });
      expect(r.status).toBe(404);
      expect(r.json).not.toHaveProperty('issues');
      expect(ApiError.parse(r.json).code).toBe('not_found');
    } finally {
      await server.close();
      await engine.close();
    }
  });
});
