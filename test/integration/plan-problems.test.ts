import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const env = { CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DATA_DIR: tmp.dir };

// Schema problems (repetitions 0, a zero cap step, an unknown field) and device problems (an unknown workload,
// a GPU that does not exist, a cap above the H100's 700 W) in one plan.
const bad = {
  backend: 'sim',
  devices: [0, 5],
  workloads: [{ id: 'vit_l_16' }, { id: 'no_such_workload' }],
  caps: { from: 300, to: 800, step: 0 },
  repetitions: 0,
  cooldown_s: -1,
  colour: 'blue',
  sim: { devices: ['h100-sxm'] },
};

describe('plan problems: every one at once, in words, at its field', () => {
  it('validatePlan lists schema and device problems together with their fields', { timeout: 60_000 }, async () => {
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env: { ...process.env, ...env } });
    try {
      const v = await engine.validatePlan({ plan: bad });
      expect(v.ok).toBe(false);
      const at = Object.fromEntries(v.issues.map((i) => [i.path, i.message]));
      expect(at.repetitions).toBe('Repetitions must be at least 1 (got 0)');
      expect(at['caps.step']).toBe('a step of at least 0.01 W (got 0)');
      expect(at.cooldown_s).toBe('Cool-down must be at least 0 s (got -1)');
      expect(at['']).toBe('The plan has unknown field colour');
      expect(at['workloads.1.id']).toMatch(/^unknown workload "no_such_workload" \(known: .*vit_l_16/);
      expect(at['devices.1']).toBe('no GPU with index 5 (available: 0)');
      // No message speaks zod ("Too small", "Invalid input", "expected number").
      for (const i of v.issues) expect(i.message).not.toMatch(/Too small|Too big|Invalid input|expected (number|string)/);
      expect(v.errors).toContain('repetitions: Repetitions must be at least 1 (got 0)');

      // The caps range is checked against the device once the schema allows it, still with the other problems.
      const v2 = await engine.validatePlan({ plan: { ...bad, caps: { from: 300, to: 800, step: 100 } } });
      expect(v2.issues.find((i) => i.path === 'caps')?.message).toMatch(/^800 W is outside the allowed range of .*H100.* \(#0\): 200-700 W$/);
      expect(v2.issues.map((i) => i.path)).toContain('repetitions');

      // A backend that cannot be opened is a problem of the backend field, not a failed call.
      const v3 = await engine.validatePlan({ plan: { ...bad, backend: 'nvml' } });
      expect(v3.issues.find((i) => i.path === 'backend')?.message).toMatch(/cannot be opened: .*(nvml|NVML|libnvidia)/);
    } finally {
      await engine.close();
    }
  });

  it('caplab sweep reports them all at once too, and writes nothing', { timeout: 60_000 }, async () => {
    const file = join(tmp.dir, 'bad.yaml');
    writeFileSync(file, 'backend: sim\nworkloads: [{id: no_such_workload}]\ncaps: [100, 300]\nrepetitions: 0\nsim: {devices: [h100-sxm]}\n');
    const r = await runCli(['sweep', file, '--db', join(tmp.dir, 'cli.db')], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain('repetitions: Repetitions must be at least 1 (got 0)');
    expect(r.stderr).toContain('workloads.0.id: unknown workload "no_such_workload"');
    expect(r.stderr).toContain('caps: 100 W is outside the allowed range of');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
