import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import type { PlanInput } from '../../src/shared/plan';

/** Env for the CLI and the engine over a temp folder: its own database, data dir and simulated-GPU state. */
export function labEnv(dir: string): { CAPLAB_SIM_STATE_DIR: string; CAPLAB_DATA_DIR: string; CAPLAB_DB: string } {
  return { CAPLAB_SIM_STATE_DIR: join(dir, 'sim'), CAPLAB_DATA_DIR: dir, CAPLAB_DB: join(dir, 'lab.db') };
}

/** Records one short simulated ViT-L/16 sweep per preset (real engine, real workload processes); returns their ids. */
export async function recordSimSweeps(dir: string, presets: string[], plan: Partial<PlanInput> = {}): Promise<number[]> {
  const env = labEnv(dir);
  const engine = await Engine.open({ dbPath: env.CAPLAB_DB, env: { ...process.env, ...env } });
  const ids: number[] = [];
  try {
    for (const preset of presets) {
      const sweep = await engine.beginSweep({
        name: `report test on ${preset}`,
        backend: 'sim',
        workloads: [{ id: 'vit_l_16' }],
        caps: [300, 400, 500],
        repetitions: 2,
        warmup: { seconds: 15 },
        window: { seconds: 15 },
        cooldown_s: 0,
        sim: { speedup: 60, devices: [preset] },
        ...plan,
      });
      const status = await sweep.done;
      if (status !== 'done') throw new Error(`sweep on ${preset} ended ${status}`);
      ids.push(sweep.sweepId);
    }
  } finally {
    await engine.close();
  }
  return ids;
}
