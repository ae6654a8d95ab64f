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
    engine.subscribe((...[name]) => events.push(name));
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
      // The running workload's terminal takes input while a run is in progress.
      let written = false;
      for (let i = 0; i < 100 && !written; i++) {
        written = (await engine.writePty({ sweep_id: sweep.sweepId, data: '\n' })).written;
        if (!written) await new Promise((r) => setTimeout(r, 50));
      }
      expect(written).toBe(true);
      expect(await sweep.done).toBe('done');
      expect((await engine.writePty({ sweep_id: sweep.sweepId, data: 'x' })).written).toBe(false);
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

      const analysis = await engine.analyzeSweep({ sweep_id: sweep.sweepId, overhead_w: 100 });
      const best = analysis.groups[0]!.optima['max-efficiency'].cap_w!;
      expect(best).toBeGreaterThanOrEqual(300);
      expect(best).toBeLessThanOrEqual(450);
      expect(analysis.groups[0]!.refine).toMatchObject({ target_width_w: 25 });

      const idle = await engine.sampleDevices({ backend: 'sim' });
      expect(idle.backend).toBe('sim');
      expect(idle.samples).toHaveLength(1);
      expect(idle.samples[0]!.power_w).toBeGreaterThan(30);
      expect(idle.samples[0]!.power_w).toBeLessThan(200);
    } finally {
      await engine.close();
    }
  });
});
