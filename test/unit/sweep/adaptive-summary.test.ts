import { describe, expect, it } from 'vitest';
import { adaptiveSummary } from '../../../src/core/sweep/adaptive-summary';
import { Plan } from '../../../src/shared/plan';
import { RunRecord } from '../../../src/shared/records';

const run = (id: number, cap: number, start: number, adaptive: RunRecord['adaptive']): RunRecord =>
  RunRecord.parse({
    id, sweep_id: 1, workload: 'w', cap_w: cap, repetition: 1, order: id, status: 'done', exit_code: 0, error: null, started_at: start, ended_at: start + 40,
    warmup_end: null, measure_start: null, measure_end: null, units: null, throughput: null, mean_power_w: null, energy_j: null, efficiency: null, energy_sensor: null, enforced_limit_w: null, adaptive,
  });

describe('adaptive summary: what the sweep spent against the same plan fixed', () => {
  it('adds the window and cool-down not spent and the repetitions not needed', () => {
    const plan = Plan.parse({ workloads: [{ id: 'w' }], caps: [300, 400], window: { seconds: 60 }, cooldown_s: 30, adaptive: { window: {}, cooldown: {}, repetitions: { max_per_cap: 3 } } });
    const settled = (seconds: number) => ({ settled: true, seconds, planned_s: 60, throughput_ci: 0.004, power_ci: 0.001, reason: 'steady' });
    const cool = (waited_s: number) => ({ waited_s, planned_s: 30, how: 'baseline' as const, reason: 'settled' });
    const runs = [run(1, 300, 0, { window: settled(20), cooldown: cool(10) }), run(2, 400, 100, { window: settled(25), cooldown: cool(30) }), run(3, 400, 200, { window: { ...settled(60), settled: false }, cooldown: cool(5) })];
    const s = adaptiveSummary(plan, runs)!;
    expect(s.gpu_s).toBe(3 * 40 + 10 + 30 + 5);
    expect(s.window_saved_s).toBe(40 + 35);
    expect(s.cooldown_saved_s).toBe(20 + 0 + 25);
    // 300 W has 1 of 3 repetitions, 400 W 2 of 3: 3 runs not needed, each at the mean fixed cost of a run.
    expect(s.runs_not_needed).toBe(3);
    expect(s.repetitions_saved_s).toBeCloseTo((3 * (s.gpu_s + s.window_saved_s + s.cooldown_saved_s)) / 3, 9);
    expect(s.fixed_gpu_s).toBeCloseTo(s.gpu_s + s.saved_s, 9);
    expect(s.windows_settled).toBe(2);
  });

  it('is null for a plan without adaptivity', () => {
    expect(adaptiveSummary(Plan.parse({ workloads: [{ id: 'w' }], caps: [300] }), [])).toBeNull();
  });
});
