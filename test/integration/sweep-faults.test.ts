import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { SimBackend } from '../../src/main/lab/gpu/sim';
import { processTree } from '../../src/main/lab/runner/process-tree';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const simDir = join(tmp.dir, 'sim');
const env = { ...process.env, CAPLAB_SIM_STATE_DIR: simDir, CAPLAB_DATA_DIR: tmp.dir };

const base = {
  backend: 'sim',
  caps: [300],
  warmup: { seconds: 10 },
  window: { seconds: 20 },
  cooldown_s: 0,
  hang_timeout_s: 3,
  sim: { speedup: 20, devices: ['h100-sxm'] },
};

/** No simulated workload may outlive its run: no activity file, no child process of this test left. */
function leftovers(): { activity: string[]; children: number[] } {
  const dir = join(simDir, 'sim-activity');
  return { activity: existsSync(dir) ? readdirSync(dir) : [], children: processTree(process.pid).slice(1) };
}

describe('simulated workloads that crash, hang or print malformed lines', () => {
  it('marks each failed run with its reason and last output, goes on, and restores the limit', { timeout: 120_000 }, async () => {
    await new SimBackend({ stateDir: simDir, presets: ['h100-sxm'] }).setPowerLimit(0, 640);
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env });
    try {
      const sweep = await engine.beginSweep({
        ...base,
        workloads: [
          { id: 'resnet50', params: { fail_after_s: 14 } },
          { id: 'vit_l_16', params: { hang_after_s: 14 } },
          { id: 'sd_unet', params: { garbage: true } },
          { id: 'llama_pretrain' },
        ],
        on_failure: 'continue',
      });
      expect(await sweep.done).toBe('done');
      const { runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
      const by = Object.fromEntries(runs.map((r) => [r.workload, r]));
      expect(by.resnet50!.status).toBe('failed');
      expect(by.resnet50!.error).toMatch(/^simulated failure after 14 s/);
      expect(by.resnet50!.error).toMatch(/--- last output ---[\s\S]*RuntimeError: simulated failure/);
      expect(by.vit_l_16!.status).toBe('failed');
      expect(by.vit_l_16!.error).toMatch(/no step for \d+ s .*hang_timeout_s 3/);
      // Malformed protocol lines between valid steps are kept as text; the valid steps still measure the run.
      expect(by.sd_unet!.status).toBe('done');
      expect(by.sd_unet!.throughput).toBeGreaterThan(5);
      expect(by.llama_pretrain!.status).toBe('done');
      expect(by.llama_pretrain!.throughput).toBeGreaterThan(15_000);
      expect(await new SimBackend({ stateDir: simDir }).getPowerLimit(0)).toBe(640);
      expect(leftovers()).toEqual({ activity: [], children: [] });
    } finally {
      await engine.close();
    }
  });

  it('with on_failure: stop, ends the sweep at the first failure and cancels the rest', { timeout: 120_000 }, async () => {
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env });
    try {
      const sweep = await engine.beginSweep({ ...base, workloads: [{ id: 'resnet50', params: { fail_after_s: 12 } }, { id: 'vit_l_16' }], on_failure: 'stop' });
      expect(await sweep.done).toBe('failed');
      const { sweep: record, runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
      expect(record.error).toMatch(/on_failure: stop/);
      expect(runs.map((r) => r.status)).toEqual(['failed', 'cancelled']);
      expect(await new SimBackend({ stateDir: simDir }).getPowerLimit(0)).toBe(640);
      expect(leftovers()).toEqual({ activity: [], children: [] });
    } finally {
      await engine.close();
    }
  });
});
