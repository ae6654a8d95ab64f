// A window edge's counter reading is stamped with the time its value belongs to: the simulated backend's own
// instant (its clock runs 60x, so a stall around the call moved a midpoint stamp past the next drained reading), a
// real backend's midpoint of the call otherwise.
import { describe, expect, it } from 'vitest';
import { counterReading } from '../../src/main/lab/gpu/counter-reading';
import { SimBackend } from '../../src/main/lab/gpu/sim';
import { SimClock } from '../../src/main/lab/gpu/sim-clock';
import type { GpuBackend } from '../../src/main/lab/gpu/backend';
import { tempDir } from '../helpers/tmp';

describe('counterReading', () => {
  it('takes the simulated backend its own instant, however long the call around it takes', async () => {
    const tmp = tempDir('caplab-counter-');
    try {
      const clock = new SimClock(Date.now() / 1000, 60);
      const b = new SimBackend({ stateDir: tmp.dir, clock, seed: 3 });
      b.drainSamples([0], 100);
      const before = b.now();
      const r = await counterReading(b, 0);
      await new Promise((res) => setTimeout(res, 20)); // 1.2 s simulated
      expect(r.t).toBeGreaterThanOrEqual(before);
      expect(b.now() - r.t).toBeGreaterThan(1);
      expect(Number.isInteger(r.energy_mj)).toBe(true);
      await b.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('stamps a backend without its own time at the middle of the call', async () => {
    let now = 100;
    const backend = {
      now: () => now,
      readEnergyMj: async () => {
        now += 0.004; // an NVML counter read takes ~4 ms
        return 123_456;
      },
    } as unknown as GpuBackend;
    const r = await counterReading(backend, 0);
    expect(r.energy_mj).toBe(123_456);
    expect(r.t).toBeCloseTo(100.002, 9);
  });
});
