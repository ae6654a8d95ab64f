import { describe, expect, it } from 'vitest';
import { GOLDEN, proposeCaps, snapCap, type RefineInput } from '../../../src/core/analysis/refine';
import { analyzeSweep } from '../../../src/core/analysis/analyze';
import { H100_VIT, paperSweep } from './synth';

const limits = { min_w: 200, max_w: 700, granularity_w: 1 };
const coarse = (f: (c: number) => number, caps = [200, 300, 400, 500, 600, 700]) => caps.map((c) => ({ cap_w: c, score: f(c) }));

describe('snapCap', () => {
  it('rounds to the device granularity inside the limits', () => {
    expect(snapCap(261.8, limits)).toBe(262);
    expect(snapCap(338.2, { ...limits, granularity_w: 5 })).toBe(340);
    expect(snapCap(150, limits)).toBe(200);
    expect(snapCap(1000, { min_w: 100, max_w: 698, granularity_w: 5 })).toBe(695);
  });
});

describe('golden-section refinement', () => {
  it('first round around a peak at ~347 W: one probe on each side of the best cap', () => {
    // best measured 300 W (score -(c-347)^2: 300 -> -2209, 400 -> -2809); bracket 200..400;
    // probes 300 - 0.382 * 100 = 261.8 -> 262 and 300 + 38.2 = 338.2 -> 338
    const p = proposeCaps({ points: coarse((c) => -((c - 347) ** 2)), limits, width_w: 25, max_runs: 12, runs_used: 0, repetitions: 1 });
    expect(GOLDEN).toBeCloseTo(0.381966, 6);
    expect(p).toMatchObject({ best_cap_w: 300, bracket: [200, 400], width_w: 200, done: false, reason: 'continue', next_caps: [262, 338] });
  });
  it('iterating converges on the peak to the asked width, within the run budget', () => {
    const f = (c: number) => -((c - 347) ** 2);
    const input: RefineInput = { points: coarse(f), limits, width_w: 25, max_runs: 12, runs_used: 0, repetitions: 1 };
    let p = proposeCaps(input);
    let rounds = 0;
    while (!p.done && rounds++ < 20) {
      input.points = [...input.points, ...p.next_caps.map((c) => ({ cap_w: c, score: f(c) }))];
      input.runs_used += p.next_caps.length;
      p = proposeCaps(input);
    }
    expect(p.reason).toBe('converged');
    expect(p.width_w!).toBeLessThanOrEqual(25);
    expect(p.bracket![0]).toBeLessThanOrEqual(347);
    expect(p.bracket![1]).toBeGreaterThanOrEqual(347);
    expect(Math.abs(p.best_cap_w! - 347)).toBeLessThanOrEqual(12.5);
    expect(input.runs_used).toBeLessThanOrEqual(12);
  });
  it('stops when the run budget is spent', () => {
    const p = proposeCaps({ points: coarse((c) => -((c - 347) ** 2)), limits, width_w: 5, max_runs: 12, runs_used: 11, repetitions: 2 });
    expect(p).toMatchObject({ done: true, reason: 'budget', next_caps: [], runs_left: 1 });
    // one cap affordable: only the larger side is probed
    const q = proposeCaps({ points: coarse((c) => -((c - 347) ** 2)), limits, width_w: 5, max_runs: 12, runs_used: 10, repetitions: 2 });
    expect(q.next_caps).toHaveLength(1);
  });
  it('stops at the device granularity', () => {
    const p = proposeCaps({ points: coarse((c) => -((c - 347) ** 2), [300, 325, 350, 375, 400]), limits: { ...limits, granularity_w: 25 }, width_w: 10, max_runs: 99, runs_used: 0, repetitions: 1 });
    expect(p).toMatchObject({ best_cap_w: 350, done: true, reason: 'granularity' });
  });
  it('extends the grid when the best cap sits at its edge and the device allows more', () => {
    const p = proposeCaps({ points: coarse((c) => -c, [300, 400, 500]), limits: { min_w: 100, max_w: 700, granularity_w: 1 }, width_w: 25, max_runs: 12, runs_used: 0, repetitions: 1 });
    expect(p.bracket).toBeNull();
    expect(p.next_caps).toContain(200);
    // at the device minimum the limit closes the bracket: probes only inside
    const q = proposeCaps({ points: coarse((c) => -c, [200, 300]), limits, width_w: 25, max_runs: 12, runs_used: 0, repetitions: 1 });
    expect(q.bracket).toEqual([200, 300]);
    expect(q.next_caps).toEqual([238]);
  });
  it('no data', () => {
    expect(proposeCaps({ points: [{ cap_w: 300, score: null }], limits, width_w: 25, max_runs: 12, runs_used: 0, repetitions: 1 }).reason).toBe('no-data');
  });
  it('analyzeSweep proposes the next caps for an adaptive plan (H100 ViT, max-efficiency)', () => {
    const r = analyzeSweep(
      { runs: paperSweep({ workload: 'vit', throughput: H100_VIT }), device_limits: { 'H100 SXM': { min_w: 200, max_w: 700, granularity_w: 1 } } },
      { adaptive: { width_w: 25, max_runs: 12, repetitions: 1 } },
    );
    expect(r.groups[0]!.refine).toMatchObject({ best_cap_w: 300, bracket: [200, 400], next_caps: [262, 338] });
  });
});
