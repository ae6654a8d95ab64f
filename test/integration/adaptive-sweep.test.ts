import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('adaptive caps (engine API, simulated H100)', () => {
  it('refines around the efficiency peak after the coarse grid, within the run budget', { timeout: 240_000 }, async () => {
    const env = { ...process.env, CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DATA_DIR: tmp.dir };
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env });
    const events: string[] = [];
    engine.subscribe((name) => events.push(name));
    try {
      const sweep = await engine.beginSweep({
        backend: 'sim',
        workloads: [{ id: 'vit_l_16' }],
        caps: { adaptive: { from: 200, to: 700, step: 100, width_w: 25, max_runs: 4 } },
        warmup: { seconds: 15 },
        window: { seconds: 20 },
        cooldown_s: 0,
        sim: { speedup: 60, devices: ['h100-sxm'] },
      });
      expect(await sweep.done).toBe('done');
      const { runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
      const coarse = runs.slice(0, 6).map((r) => r.cap_w);
      const added = runs.slice(6).map((r) => r.cap_w);
      expect(coarse).toEqual([200, 300, 400, 500, 600, 700]);
      expect(added.length).toBeGreaterThan(0);
      expect(added.length).toBeLessThanOrEqual(4);
      // New caps fall between grid points around the peak (300-400 W on the simulated H100), inside the limits.
      for (const cap of added) {
        expect(cap % 100).not.toBe(0);
        expect(cap).toBeGreaterThan(200);
        expect(cap).toBeLessThan(500);
      }
      expect(runs.every((r) => r.status === 'done')).toBe(true);
      expect(events).toContain('sweep.finished');
    } finally {
      await engine.close();
    }
  });
});
