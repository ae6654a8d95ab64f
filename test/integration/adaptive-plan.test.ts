// Plan `adaptive` end to end (issue 28): the real engine, real workload processes in ptys, a real SQLite file and the
// simulated H100. Windows end between the steady-state minimum and the plan's window, cool-downs within the plan's,
// repetitions only where the answer is undecided, each run saying why it was done; a kill restores the limit.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { tempDir } from '../helpers/tmp';
import { runCli, startCli } from '../helpers/cli';
import { labEnv, setSimLimit, simLimit, waitFor, writePlan } from '../helpers/lab-env';
import type { PlanInput } from '../../src/shared/plan';

const tmp = tempDir('caplab-adaptive-');
afterAll(() => tmp.cleanup());

const plan: PlanInput = {
  name: 'adaptive resnet',
  backend: 'sim',
  workloads: [{ id: 'resnet50' }],
  caps: [250, 350, 450],
  order: 'randomized',
  seed: 3,
  // Past ResNet-50's warm-up ramp on the simulated H100 (init 3 s + 3 s time constant: within 1 % by ~14.4 s), so no
  // run is flagged warmup-in-window and left out of the counted repetitions these tests are about.
  warmup: { seconds: 20 },
  window: { seconds: 60 },
  cooldown_s: 30,
  adaptive: { window: { ci_target: 0.01, min_s: 8 }, cooldown: { check_s: 1 }, repetitions: { max_per_cap: 3 }, budget: { runs: 6 } },
  sim: { speedup: 50, devices: ['h100-sxm'] },
};

describe('adaptive plan (engine, simulated H100)', () => {
  it('ends windows and cool-downs inside their bounds, repeats only undecided caps within the budget, records why', { timeout: 240_000 }, async () => {
    const env = labEnv(join(tmp.dir, 'engine'), 'a');
    const engine = await Engine.open({ dbPath: env.CAPLAB_DB!, env: { ...process.env, ...env } });
    const reasons: string[] = [];
    let recorded: { id: number; runs: { reason: string | null; adaptive: unknown }[] } | undefined;
    engine.subscribe((name, payload) => {
      const p = payload as { phase?: string; reason?: string | null; cap_w?: number };
      if (name === 'sweep.progress' && p.phase === 'setting-cap' && p.reason) reasons.push(`cap ${p.cap_w} W: ${p.reason}`);
    });
    try {
      const sweep = await engine.beginSweep(plan);
      expect(await sweep.done).toBe('done');
      const { runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
      const first = runs.slice(0, 3);
      const added = runs.slice(3);
      expect(first.map((r) => r.reason)).toEqual(first.map(() => 'first pass (the plan grid), repetition 1'));
      // The first pass decides nothing (one repetition each), so repetitions follow, within budget.runs.
      expect(added.length).toBeGreaterThan(0);
      expect(added.length).toBeLessThanOrEqual(6);
      for (const r of added) expect(r.reason).toMatch(/^repetition \d(, deciding whether it is within 2 % of \d+ W| of the best cap so far, \d+ W)/);
      for (const cap of [250, 350, 450]) expect(runs.filter((r) => r.cap_w === cap).length).toBeLessThanOrEqual(3);
      // The console got the same reasons, one per run.
      expect(reasons).toHaveLength(runs.length);
      expect(reasons[3]).toMatch(/^cap \d+ W: repetition 2/);
      for (const r of runs) {
        expect(r.status).toBe('done');
        const w = r.adaptive!.window!;
        const seconds = r.measure_end! - r.measure_start!;
        // Never below the minimum window (nor the steady-state test's 50 steps: ResNet-50 steps take ~0.18 s), never
        // past the plan's window.
        expect(seconds).toBeGreaterThanOrEqual(8);
        expect(seconds).toBeLessThanOrEqual(60 + 1);
        expect(w.seconds).toBeCloseTo(seconds, 6);
        if (w.settled) expect(w.throughput_ci!).toBeLessThanOrEqual(0.01);
      }
      expect(runs.filter((r) => r.adaptive!.window!.settled).length).toBeGreaterThan(0);
      // Every run but the last cools down adaptively, and never past the plan's 30 s: a wait that reaches it ends as
      // 'bound' at that check. The recorded wait is the device clock's, so a timer firing late on a loaded machine
      // shows, 50 times over at speed-up 50 (5 s = 100 ms of wall time).
      const cooled = runs.filter((r) => r.adaptive?.cooldown);
      expect(cooled.length).toBeGreaterThanOrEqual(runs.length - 1);
      for (const r of cooled) {
        const c = r.adaptive!.cooldown!;
        expect(c.planned_s).toBe(30);
        expect(c.waited_s).toBeLessThanOrEqual(30 + 5);
        expect(['baseline', 'flat', 'bound']).toContain(c.how);
        if (c.waited_s >= 30) expect(c.how).toBe('bound');
        else expect(c.how).not.toBe('bound');
      }

      const analysis = await engine.analyzeSweep({ sweep_id: sweep.sweepId });
      const summary = analysis.adaptive!;
      expect(summary.runs).toBe(runs.length);
      expect(summary.window_saved_s).toBeGreaterThan(0);
      expect(summary.saved_s).toBeCloseTo(summary.window_saved_s + summary.cooldown_saved_s + summary.repetitions_saved_s, 6);
      expect(summary.fixed_gpu_s).toBeGreaterThan(summary.gpu_s);
      expect(summary.note).toContain('with the plan\'s figures fixed');
      recorded = { id: sweep.sweepId, runs: runs.map((r) => ({ reason: r.reason, adaptive: r.adaptive })) };
    } finally {
      await engine.close();
    }
    // The sweep bundle keeps why each run was done and what was decided for it: a re-import has the same.
    const bundle = join(tmp.dir, 'engine', 'adaptive.json');
    expect((await runCli(['export', 'json', String(recorded!.id), '--out', bundle], env)).code).toBe(0);
    const imported = JSON.parse((await runCli(['import', bundle, '--json'], env)).stdout) as { sweeps: { sweep_id: number }[] };
    const again = JSON.parse((await runCli(['runs', '--json', '--sweep', String(imported.sweeps[0]!.sweep_id)], env)).stdout)[0].runs as { reason: string; adaptive: unknown }[];
    expect(again.map((r) => ({ reason: r.reason, adaptive: r.adaptive }))).toEqual(recorded!.runs);
  });

  it('pool_single: a cap far from the best is judged worse on the pooled spread without a repetition of its own', { timeout: 240_000 }, async () => {
    const env = labEnv(join(tmp.dir, 'pooled'), 'p');
    const engine = await Engine.open({ dbPath: env.CAPLAB_DB!, env: { ...process.env, ...env } });
    try {
      // ResNet-50's best on the simulated H100 is near 300 W; 700 W is ~20 % below it.
      const sweep = await engine.beginSweep({ ...plan, name: 'pooled', caps: [250, 300, 350, 700], adaptive: { ...plan.adaptive, cooldown: undefined, repetitions: { max_per_cap: 2 }, budget: {} } });
      expect(await sweep.done).toBe('done');
      const { runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
      const at = (cap: number) => runs.filter((r) => r.cap_w === cap).length;
      // The first batch is the best cap and its neighbours; 700 W is never repeated.
      expect(at(700)).toBe(1);
      expect(runs.length).toBeLessThanOrEqual(4 + 3);
      const analysis = await engine.analyzeSweep({ sweep_id: sweep.sweepId });
      const eq = analysis.groups[0]!.optima['max-efficiency'].equivalence!;
      expect(eq.caps.find((c) => c.cap_w === 700)).toMatchObject({ verdict: 'worse', spread: 'pooled' });
      expect(analysis.groups[0]!.optima['max-efficiency'].indistinguishable_caps).not.toContain(700);
      // The caller may ask for the analysis without pooling: the single run then says nothing.
      const own = await engine.analyzeSweep({ sweep_id: sweep.sweepId, pool_single: false });
      expect(own.groups[0]!.optima['max-efficiency'].equivalence!.caps.find((c) => c.cap_w === 700)).toMatchObject({ verdict: 'undetermined', ci: null });
    } finally {
      await engine.close();
    }
  });
});

const cliPlan = `backend: sim
workloads: [{id: resnet50}]
caps: [260, 330, 410]
order: randomized
warmup: {seconds: 6}
window: {seconds: 60}
cooldown_s: 120
adaptive: {window: {min_s: 30}, cooldown: {temp_band_c: 0.5, power_band_w: 0.001, flat_c_per_min: 0.01, check_s: 60}, repetitions: {max_per_cap: 3}}
sim: {speedup: 20, devices: [h100-sxm]}
`;

describe('a kill during an adaptive sweep restores the limit like any other', () => {
  it('SIGTERM in an adaptive cool-down: the CLI restores the pre-sweep limit itself', { timeout: 180_000 }, async () => {
    const env = labEnv(join(tmp.dir, 'term'), 'a');
    await setSimLimit(env, 640);
    const sweep = startCli(['sweep', writePlan(join(tmp.dir, 'term'), 'plan', cliPlan)], env);
    let err = '';
    sweep.child.stderr!.on('data', (d) => (err += d));
    // The die cools within seconds (SXM5_DIE_TAU_S), so the power band does the holding: noisy idle readings (about
    // +-1.4 W) almost never come within 0.001 W of the baseline, checked once a minute: the signal lands inside it.
    await waitFor('the first run to finish', () => /@ \d+ W rep 1: /.test(err), 120_000);
    sweep.child.kill('SIGTERM');
    const r = await sweep.done;
    expect(r.stderr).toMatch(/SIGTERM: cancelling the sweep and restoring power limits/);
    expect(await simLimit(env)).toBe(640);
  });

  it('SIGKILL during an adaptive run: the next start restores the journalled limit', { timeout: 180_000 }, async () => {
    const env = labEnv(join(tmp.dir, 'kill'), 'a');
    await setSimLimit(env, 650);
    const sweep = startCli(['sweep', writePlan(join(tmp.dir, 'kill'), 'plan', cliPlan)], env);
    await waitFor('a cap of the plan to be set', async () => [260, 330, 410].includes(await simLimit(env)), 120_000);
    sweep.child.kill('SIGKILL');
    await sweep.done;
    expect([260, 330, 410]).toContain(await simLimit(env));
    const restore = await runCli(['restore-caps', '--json'], env);
    expect(restore.code).toBe(0);
    expect(JSON.parse(restore.stdout)).toEqual([expect.objectContaining({ before_w: 650, restored_w: 650, ok: true })]);
    expect(await simLimit(env)).toBe(650);
  });
});
