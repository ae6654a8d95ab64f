import { describe, expect, it } from 'vitest';
import { efficiencyAt, overheadSensitivity, paretoFront, selectors, stat, summarize } from '../../src/renderer/lib/results';
import type { RunRecord } from '../../src/shared/records';

function run(cap: number, rep: number, thr: number, gpuW: number, extra: Partial<RunRecord> = {}): RunRecord {
  const overhead = 100;
  return {
    id: cap * 10 + rep, sweep_id: 1, workload: 'vit_l_16', cap_w: cap, repetition: rep, order: 0, status: 'done', exit_code: 0, error: null,
    started_at: 0, ended_at: 100, warmup_end: 10, measure_start: 10, measure_end: 70, units: 'images', throughput: thr, mean_power_w: gpuW,
    energy_j: gpuW * 60, efficiency: thr / (gpuW + overhead), energy_sensor: 'counter', enforced_limit_w: cap, ...extra,
  };
}

// H100 ViT-L/16 figures from DOMAIN.md with plausible power draws.
const runs = [
  ...[1, 2, 3].map((r) => run(200, r, 116.4 + r, 200)),
  ...[1, 2, 3].map((r) => run(300, r, 214.9 + r, 298)),
  ...[1, 2, 3].map((r) => run(400, r, 259.0 + r, 390)),
  ...[1, 2, 3].map((r) => run(500, r, 280.05 + r, 470)),
  ...[1, 2, 3].map((r) => run(700, r, 305.97 + r, 620)),
];

describe('renderer results summary', () => {
  it('computes mean, sd and a Student-t 95 % CI', () => {
    const s = stat([1, 2, 3]);
    expect(s.mean).toBe(2);
    expect(s.sd).toBeCloseTo(1);
    expect(s.ci95).toBeCloseTo((4.303 * 1) / Math.sqrt(3), 3);
    expect(stat([5]).ci95).toBeNull();
  });

  it('re-derives efficiency for another node overhead', () => {
    const r = run(300, 1, 200, 300);
    expect(efficiencyAt(r, 1, 100, 100)).toBeCloseTo(0.5);
    expect(efficiencyAt(r, 1, 100, 0)).toBeCloseTo(200 / 300);
  });

  it('finds a hill-shaped efficiency curve with its best cap and selectors', () => {
    const caps = summarize(runs, { gpus: 1, planOverhead: 100, overhead: 100 }).get('vit_l_16')!;
    expect(caps.map((c) => c.cap_w)).toEqual([200, 300, 400, 500, 700]);
    const [eff, thr, within] = selectors(caps);
    expect(eff!.cap_w).toBe(300);
    expect(thr!.cap_w).toBe(700);
    expect(within!.cap_w).toBe(500);
    expect(eff!.range![0]).toBeLessThanOrEqual(300);
    expect(paretoFront(caps).map((c) => c.cap_w)).toContain(300);
  });

  it('flags non-enforced caps, single repetitions and failed runs', () => {
    const caps = summarize([run(200, 1, 100, 260, { enforced_limit_w: 400 }), run(300, 1, 150, 290), run(300, 2, 0, 0, { status: 'failed', throughput: null, efficiency: null })], { gpus: 1, planOverhead: 100, overhead: 100 }).get('vit_l_16')!;
    expect(caps[0]!.flags.join(' ')).toMatch(/not enforced/);
    expect(caps[1]!.flags.join(' ')).toMatch(/one repetition/);
    expect(caps[1]!.flags.join(' ')).toMatch(/not done \(failed\)/);
  });

  it('moves the best cap up as the overhead grows', () => {
    const sens = overheadSensitivity(runs, { gpus: 1, planOverhead: 100 }, [0, 300]);
    expect(sens[0]!.cap_w!).toBeLessThanOrEqual(sens[1]!.cap_w!);
  });
});
