// Issue 25, finding 2: a plan's warm-up, window and estimate are checked against what is known of its workloads.
import { describe, expect, it } from 'vitest';
import { Plan, type PlanInput } from '../../src/shared/plan';
import { definitionTiming, estimatePlanWall, mergeTimings, planTimingWarnings, simTiming, timingFromRuns, type PastRun, type WorkloadTiming } from '../../src/core/plan-timing';
import { findWorkload } from '../../src/core/sim/workloads';
import { warmupEndS } from '../../src/core/sim/model';

const plan = (p: Partial<PlanInput> = {}) => Plan.parse({ backend: 'sim', workloads: [{ id: 'vit_l_16' }], caps: [300, 500, 700], warmup: { seconds: 5 }, window: { seconds: 10 }, sim: { speedup: 60 }, ...p });
const timings = (p: ReturnType<typeof plan>) => new Map(p.workloads.map((w) => [w.id, simTiming(w)]));

describe('plan timing warnings', () => {
  it('warns at the warm-up when it is shorter than the simulated ViT-L/16 ramp, and names the fix', () => {
    const p = plan();
    const w = planTimingWarnings(p, timings(p), 60);
    const ramp = warmupEndS(findWorkload('vit_l_16')!) - findWorkload('vit_l_16')!.init_s;
    expect(ramp).toBeGreaterThan(15);
    expect(w).toEqual([
      {
        path: 'warmup.seconds',
        message: `vit_l_16 is still ramping up for about ${Math.round(ramp)} s after its first step (the simulator's model): a 5 s warm-up leaves the ramp in the measurement window, and the runs will be flagged warmup-in-window or no-steady-state; use at least 20 s`,
      },
    ]);
    // A warm-up covering the ramp is not warned about.
    const ok = plan({ warmup: { seconds: 20 } });
    expect(planTimingWarnings(ok, timings(ok), 60)).toEqual([]);
  });

  it('converts a warm-up given in steps with the step time and answers in steps', () => {
    const p = plan({ warmup: { steps: 5 } });
    const [w] = planTimingWarnings(p, timings(p), 1);
    expect(w?.path).toBe('warmup.steps');
    expect(w?.message).toMatch(/a 2\.\d s warm-up .* use at least \d+ steps \(~20 s\)$/);
  });

  it('warns at the window when warm-up + window are too short for the steady-state test (MSER-5, 50 points)', () => {
    // One reading a second, and steps of ~13 s (batch 4096): neither series reaches what MSER needs.
    const p = plan({ warmup: { seconds: 20 }, window: { seconds: 10 }, sample_interval_ms: 1000, workloads: [{ id: 'vit_l_16', params: { batch_size: 4096 } }] });
    const w = planTimingWarnings(p, timings(p), 1);
    expect(w.map((x) => x.path)).toEqual(['window.seconds']);
    expect(w[0]!.message).toMatch(/^warm-up \+ window give 30 power readings at 1000 ms; the steady-state test \(MSER-5\) needs at least 50 .* at least \d+ s, or sample faster$/);
    // At 100 ms the same spans give 300 readings: no warning.
    const fast = plan({ warmup: { seconds: 20 }, workloads: [{ id: 'vit_l_16', params: { batch_size: 4096 } }] });
    expect(planTimingWarnings(fast, timings(fast), 1)).toEqual([]);
  });

  it('warns at the hang timeout when the start-up alone exceeds it', () => {
    const p = plan({ warmup: { seconds: 30 }, hang_timeout_s: 3, sim: { speedup: 1 } });
    const t: WorkloadTiming = { ...simTiming(p.workloads[0]!)!, boot_wall_s: 1 };
    const w = planTimingWarnings(p, new Map([['vit_l_16', t]]), 1);
    expect(w).toEqual([{ path: 'hang_timeout_s', message: "vit_l_16 takes about 5 s to reach its first step (the simulator's model); a 3 s hang timeout stops it as hung before that" }]);
  });

  it("uses a workload definition's own ramp on real GPUs, naming it", () => {
    const p = plan({ backend: 'auto', workloads: [{ id: 'resnet50' }] });
    const t = definitionTiming({ id: 'resnet50', ramp: { seconds: 20, source: 'measured on an H200' } });
    expect(planTimingWarnings(p, new Map([['resnet50', t]]), 1)).toEqual([
      { path: 'warmup.seconds', message: 'resnet50 is still ramping up for about 20 s after its first step (its definition: measured on an H200): a 5 s warm-up leaves the ramp in the measurement window, and the runs will be flagged warmup-in-window or no-steady-state; use at least 20 s' },
    ]);
    expect(definitionTiming({ id: 'resnet50' })).toBeNull();
  });

  it('says nothing of a workload nothing is known about', () => {
    const p = plan({ workloads: [{ id: 'my_own_benchmark' }] });
    expect(planTimingWarnings(p, new Map([['my_own_benchmark', null]]), 1)).toEqual([]);
  });
});

describe('timings from earlier runs', () => {
  /** A run with a start-up of `startup` device seconds, then steps ramping like the simulator's with `tau`. */
  function pastRun(startup: number, tau: number, speedup: number, n = 300): PastRun {
    const steps: PastRun['steps'] = [];
    let t = 1000 + startup;
    for (let i = 0; i < n; i++) {
      // 1 % step jitter, as the simulated workload's (a fixed pseudo-random sequence).
      const noise = ((Math.sin(i * 12.9898) * 43758.5453) % 1) * 0.02;
      const rate = 300 * (1 - 0.45 * Math.exp(-(t - 1000 - startup) / tau)) * (1 + noise);
      const dt = 64 / rate;
      t += dt;
      steps.push({ t, rate, dt });
    }
    return { started_at: 1000, steps, speedup };
  }

  it('measures the process start in wall time (less the modelled init) and the ramp from MSER on the step rates', () => {
    const t = timingFromRuns('vit_l_16', [pastRun(34, 5, 60), pastRun(28, 5, 60), pastRun(31, 5, 60)], 4, 'NVIDIA H100 80GB HBM3 (simulated)')!;
    expect(t.source).toBe('3 earlier runs on NVIDIA H100 80GB HBM3 (simulated)');
    expect(t.boot_wall_s).toBeCloseTo(27 / 60, 5);
    expect(t.ramp_s).toBeGreaterThan(5);
    expect(t.ramp_s).toBeLessThan(30);
    expect(t.step_s).toBeGreaterThan(0.2);
    expect(timingFromRuns('vit_l_16', [], 4, 'x')).toBeNull();
  });

  it('takes the longer ramp of the model and the history, and the measured process start', () => {
    const model = simTiming({ id: 'vit_l_16', params: {}, runtime: 'native' })!;
    const history: WorkloadTiming = { ...model, boot_wall_s: 1.5, ramp_s: 40, source: '2 earlier runs on X' };
    expect(mergeTimings(model, history)).toMatchObject({ boot_wall_s: 1.5, ramp_s: 40, source: "the simulator's model and 2 earlier runs on X" });
    expect(mergeTimings(model, { ...history, ramp_s: null })?.ramp_s).toBe(model.ramp_s);
    expect(mergeTimings(null, history)).toBe(history);
  });
});

describe('plan time estimate', () => {
  it('includes process start-up (not sped up), the workload start-up and the cool-down', () => {
    // The sweep: 3 caps, 5 s warm-up, 10 s window, 5 s cool-down at 60x. The old estimate said ~1 s.
    const p = plan();
    const e = estimatePlanWall(p, timings(p), 60);
    // 3 x (1 s process start of a simulated workload + (4 s init + 5 + 10 + 2 teardown + 5 cool-down) / 60)
    expect(e.seconds).toBeCloseTo(3 * (1 + 26 / 60), 5);
    expect(e.basis).toBe('3 runs: start-up, warm-up, window and 5 s cool-down each; process start ~1 s a run (assumed where no earlier run measured it); simulated time 60x faster, process start not');
    // A measured process start replaces the assumption.
    const measured = new Map([['vit_l_16', { ...simTiming(p.workloads[0]!)!, boot_wall_s: 0.5 }]]);
    expect(estimatePlanWall(p, measured, 60).seconds).toBeCloseTo(3 * (0.5 + 26 / 60), 5);
    // Real devices: no speed-up; an unknown workload gets the assumed process start only.
    const real = plan({ backend: 'auto', workloads: [{ id: 'my_own_benchmark' }] });
    expect(estimatePlanWall(real, new Map([['my_own_benchmark', null]]), 1).seconds).toBeCloseTo(3 * (5 + 10 + 5 + 2 + 2), 5);
  });
});
