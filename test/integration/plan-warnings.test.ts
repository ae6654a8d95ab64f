// Issue 25, finding 2: a 5 s warm-up / 10 s window for ViT-L/16 was called "Plan is valid" and estimated at 1 s for
// a sweep that took 8 s. The plan check (every face's) now warns at the field and estimates start-up and cool-down.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { runCli } from '../helpers/cli';
import { writePlan } from '../helpers/lab-env';
import { tempDir } from '../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const env = { CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DATA_DIR: tmp.dir };
const short = { name: 'short', backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300, 500, 700], warmup: { seconds: 5 }, window: { seconds: 10 }, cooldown_s: 5, sim: { speedup: 60, devices: ['h100-sxm'] } };

describe('plan warnings before Start', () => {
  it('validatePlan warns at the warm-up, still lets the plan start, and estimates what the sweep really takes', { timeout: 120_000 }, async () => {
    const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env: { ...process.env, ...env } });
    try {
      const v = await engine.validatePlan({ plan: short });
      expect(v.ok).toBe(true);
      expect(v.issues).toEqual([]);
      expect(v.warnings.map((w) => w.path)).toEqual(['warmup.seconds']);
      expect(v.warnings[0]!.message).toMatch(/^vit_l_16 is still ramping up for about 19 s after its first step \(the simulator's model\): .* use at least 20 s$/);
      expect(v.estimate_basis).toMatch(/process start ~1 s a run \(assumed/);
      const longer = await engine.validatePlan({ plan: { ...short, warmup: { seconds: 20 } } });
      expect(longer.warnings).toEqual([]);

      // A warning is not an error: the sweep starts, and says why its runs may come out flagged.
      const began = Date.now();
      const sweep = await engine.beginSweep(short);
      expect(sweep.notices.some((n) => n.startsWith('warning: warmup.seconds: vit_l_16 is still ramping up'))).toBe(true);
      expect(await sweep.done).toBe('done');
      const took = (Date.now() - began) / 1000;
      // The old estimate (warm-up + window + cool-down / speed-up) said ~1 s; start-up is most of the time.
      expect(v.estimate_s!).toBeGreaterThan(0.4 * took);
      expect(v.estimate_s!).toBeLessThan(3 * took);

      // Now the earlier runs on this device are known: their process start replaces the assumption.
      const again = await engine.validatePlan({ plan: short });
      expect(again.warnings[0]!.message).toContain("(the simulator's model and 3 earlier runs on NVIDIA H100 80GB HBM3 (simulated))");
      expect(again.estimate_basis).not.toContain('assumed');
      expect(again.estimate_s!).toBeGreaterThan(0.4 * took);
      expect(again.estimate_s!).toBeLessThan(3 * took);
    } finally {
      await engine.close();
    }
  });

  it('caplab sweep prints the warnings and runs the plan', { timeout: 120_000 }, async () => {
    const file = writePlan(tmp.dir, 'short', 'backend: sim\nworkloads: [{id: vit_l_16}]\ncaps: [500]\nwarmup: {seconds: 5}\nwindow: {seconds: 10}\ncooldown_s: 0\nsim: {speedup: 60, devices: [h100-sxm]}\n');
    const r = await runCli(['sweep', file, '--db', join(tmp.dir, 'cli.db')], env);
    expect(r.stderr).toMatch(/caplab: warning: warmup\.seconds: vit_l_16 is still ramping up for about 19 s .* use at least 20 s/);
    expect(r.code).toBe(0);

    // --check: the same check with this database's earlier runs, and nothing run or written.
    const db = join(tmp.dir, 'cli.db');
    const sizeBefore = statSync(db).size;
    const c = await runCli(['sweep', file, '--db', db, '--check', '--json'], env);
    expect(c.code).toBe(0);
    const v = JSON.parse(c.stdout) as { ok: boolean; warnings: { path: string; message: string }[]; run_count: number; estimate_s: number; estimate_basis: string };
    expect(v.ok).toBe(true);
    expect(v.run_count).toBe(1);
    expect(v.warnings[0]!.message).toContain("(the simulator's model and 1 earlier run on NVIDIA H100 80GB HBM3 (simulated))");
    expect(v.estimate_basis).not.toContain('assumed');
    const text = await runCli(['sweep', file, '--db', db, '--check'], env);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(/^caplab: warning: .*short\.yaml: warmup\.seconds: vit_l_16 is still ramping up/m);
    expect(text.stdout).toMatch(/short\.yaml: plan is valid, with 1 warning: 1 runs, about \d+s \(1 run: start-up/);
    const runs = await runCli(['runs', '--db', db, '--json'], env);
    expect((JSON.parse(runs.stdout) as unknown[]).length).toBe(1);
    expect(statSync(db).size).toBe(sizeBefore);
    // A refused plan: --check --json is validatePlan's answer, each problem at its field (exit 2, nothing on stderr's
    // "invalid plan" text); without --json the problems as lines, as before.
    const bad = writePlan(tmp.dir, 'bad', 'backend: sim\nworkloads: [{id: vit_l_16}]\ncaps: [500, 9000]\nrepetitions: 0\nsim: {devices: [h100-sxm]}\n');
    const refused = await runCli(['sweep', bad, '--db', db, '--check', '--json'], env);
    expect(refused.code).toBe(2);
    const rv = JSON.parse(refused.stdout) as { ok: boolean; plan: unknown; errors: string[]; issues: { path: string; message: string; severity: string }[] };
    expect(rv.ok).toBe(false);
    expect(rv.plan).toBeNull();
    expect(rv.issues.map((i) => [i.path, i.severity])).toEqual([['repetitions', 'error'], ['caps', 'error']]);
    expect(rv.issues[1]!.message).toMatch(/9000 W is outside the allowed range/);
    expect(rv.errors).toEqual(rv.issues.map((i) => `${i.path}: ${i.message}`));
    const refusedText = await runCli(['sweep', bad, '--db', db, '--check'], env);
    expect(refusedText.code).toBe(2);
    expect(refusedText.stdout).toBe('');
    expect(refusedText.stderr).toMatch(/bad\.yaml: invalid plan\n {2}repetitions: Repetitions must be at least 1 \(got 0\)\n {2}caps: 9000 W is outside/);
    // A database that does not exist is not created by a check.
    const none = join(tmp.dir, 'none.db');
    expect((await runCli(['sweep', file, '--db', none, '--check'], env)).code).toBe(0);
    expect(existsSync(none)).toBe(false);
  });
});

describe('plan warnings on real GPUs (nvidia-smi, a shim that prints what the real tool prints)', () => {
  it("warns from the workload definition's ramp before any run of it is recorded", { timeout: 60_000 }, async () => {
    const { installNvidiaSmi, makeShimDir } = await import('../helpers/gpu-shims');
    const shims = makeShimDir();
    installNvidiaSmi(shims);
    const engine = await Engine.open({ dbPath: join(shims.dir, 'lab.db'), env: { ...process.env, ...shims.env, CAPLAB_DATA_DIR: shims.dir } });
    try {
      const v = await engine.validatePlan({ plan: { backend: 'nvidia-smi', workloads: [{ id: 'resnet50' }], caps: [300], warmup: { seconds: 5 }, window: { seconds: 30 }, observe_only: true } });
      expect(v.issues).toEqual([]);
      expect(v.ok).toBe(true);
      expect(v.warnings).toEqual([expect.objectContaining({ path: 'warmup.seconds', message: expect.stringMatching(/^resnet50 is still ramping up for about 20 s after its first step \(its definition: cuDNN autotuning .*\): .* use at least 20 s$/) })]);
      // No speed-up on real devices; the process start is assumed until a run measured it.
      expect(v.estimate_basis).toBe('1 run: start-up, warm-up, window and 5 s cool-down each; process start ~2 s a run (assumed where no earlier run measured it)');
      expect(v.estimate_s).toBeCloseTo(5 + 30 + 2 + 5 + 2, 5);
    } finally {
      await engine.close();
      shims.cleanup();
    }
  });
});
