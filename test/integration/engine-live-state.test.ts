import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import type { EventPayload } from '../../src/shared/api';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const env = { ...process.env, CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DATA_DIR: tmp.dir };

describe('engine state the live views read (simulated H100)', () => {
  it('progress never goes backwards over a sweep with cool-downs, and ends with every run counted', { timeout: 180_000 }, async () => {
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'progress.db'), env });
    const progress: EventPayload<'sweep.progress'>[] = [];
    engine.subscribe((name, p) => {
      if (name === 'sweep.progress') progress.push(p as EventPayload<'sweep.progress'>);
    });
    try {
      const sweep = await engine.beginSweep({
        backend: 'sim',
        workloads: [{ id: 'vit_l_16' }],
        caps: [300, 400, 500],
        repetitions: 2,
        warmup: { seconds: 5 },
        window: { seconds: 10 },
        cooldown_s: 5,
        sim: { speedup: 100, devices: ['h100-sxm'] },
      });
      expect(await sweep.done).toBe('done');
      const fractions = progress.map((p) => p.fraction);
      expect(fractions.length).toBeGreaterThanOrEqual(6 * 3);
      for (let i = 1; i < fractions.length; i++) expect(fractions[i]!, `event ${i}: ${JSON.stringify(progress[i])}`).toBeGreaterThanOrEqual(fractions[i - 1]!);
      for (let i = 1; i < progress.length; i++) expect(progress[i]!.runs_done).toBeGreaterThanOrEqual(progress[i - 1]!.runs_done);
      // Each fraction is work done over work planned: never ahead of the runs finished plus the one under way.
      for (const p of progress) expect(p.fraction).toBeLessThanOrEqual((p.runs_done + 1) / p.run_count);
      const { sweep: rec } = await engine.getSweep({ sweep_id: sweep.sweepId });
      expect([rec.runs_done, rec.run_count]).toEqual([6, 6]);
    } finally {
      await engine.close();
    }
  });

  it('a backend that fails to open is not kept: live readings work again with another backend', { timeout: 60_000 }, async () => {
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'monitor.db'), env });
    try {
      await expect(engine.sampleDevices({ backend: 'nvml' })).rejects.toThrow(/nvml|NVML|libnvidia/);
      // Asked again, the failed open is retried (and fails again), not served from a cache ...
      await expect(engine.sampleDevices({ backend: 'nvml' })).rejects.toThrow(/nvml|NVML|libnvidia/);
      // ... and every other backend reads.
      const sim = await engine.sampleDevices({ backend: 'sim' });
      expect(sim.backend).toBe('sim');
      expect(sim.samples.length).toBeGreaterThan(0);
      await expect(engine.sampleDevices({ backend: 'nvml' })).rejects.toThrow();
      expect((await engine.sampleDevices({ backend: 'sim' })).samples.length).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  });
});
