// Equivalence to the best cap (issue #14, finding 1): a CI of the difference against a practical margin, with the
// multiple-comparison correction stated, instead of "a Welch test failed".
import { describe, expect, it } from 'vitest';
import { equivalenceToBest } from '../../../src/core/analysis/equivalence';
import { selectOptimum } from '../../../src/core/analysis/optimum';
import { welchTest } from '../../../src/core/analysis/stats';
import { gaussian, uniform } from '../../../src/core/sim/random';

describe('caps measured once, judged on the spread pooled over the caps with repetitions (pool_single)', () => {
  // Best 350 W and its neighbours with 2 runs (0.2 % run-to-run spread), 200 W measured once, 25 % below the best.
  const caps = [200, 325, 350, 375];
  const values = [[0.75], [0.985, 0.987], [1.0, 1.002], [0.99, 0.992]];
  it('a single run far below the best is worse, with a finite interval and the pooled spread named', () => {
    const eq = equivalenceToBest(caps, values, 2, 'max', { margin: 0.02, alpha: 0.05, pool_single: true });
    const far = eq.caps[0]!;
    expect(far).toMatchObject({ verdict: 'worse', spread: 'pooled' });
    expect(far.ci![1]).toBeLessThan(-0.02);
    expect(eq.candidate_caps).not.toContain(200);
    expect(eq.statement).toMatch(/200 W \(one run each\) judged on the run-to-run spread pooled over 3 caps with repetitions \(3 df\)/);
    // Without the option the same run says nothing: fewer than 2 repetitions.
    const own = equivalenceToBest(caps, values, 2, 'max', { margin: 0.02, alpha: 0.05 });
    expect(own.caps[0]).toMatchObject({ verdict: 'undetermined', ci: null });
    expect(own.caps[0]).not.toHaveProperty('spread');
  });

  it('does not cut short: a single run near the margin stays undetermined, and so does a far one with one cap of repetitions', () => {
    const near = equivalenceToBest([330, 350, 375], [[0.982], [1.0, 1.002], [0.99, 0.992]], 1, 'max', { margin: 0.02, alpha: 0.05, pool_single: true });
    expect(near.caps[0]).toMatchObject({ verdict: 'undetermined', spread: 'pooled' });
    expect(near.candidate_caps).toContain(330);
    // Only the best has repetitions: one cap's spread is not pooled over the others.
    const lone = equivalenceToBest([200, 350], [[0.75], [1.0, 1.002]], 1, 'max', { margin: 0.02, alpha: 0.05, pool_single: true });
    expect(lone.caps[0]).toMatchObject({ verdict: 'undetermined', ci: null });
  });

  it('a noisy pooled spread widens the single run\'s interval: 10 % run-to-run spread cannot show 25 % worse', () => {
    const eq = equivalenceToBest(caps, [[0.75], [0.9, 1.05], [0.95, 1.1], [0.92, 1.06]], 2, 'max', { margin: 0.02, alpha: 0.05, pool_single: true });
    expect(eq.caps[0]!.verdict).toBe('undetermined');
  });
});

describe('equivalence to the best cap', () => {
  it('two repetitions 28 % apart are not "indistinguishable": not enough repetitions to tell, and how many would', () => {
    // The case: 400 W 49.27 vs 600 W 38.51 tokens/J, n = 2 each; Welch p ~ 0.10.
    const at400 = [47.5, 51.04];
    const at600 = [35.4, 41.62];
    expect(welchTest(at400, at600)!.p).toBeGreaterThan(0.05);
    const eq = equivalenceToBest([400, 600], [at400, at600], 0, 'max', { margin: 0.02, alpha: 0.05 });
    const c = eq.caps[1]!;
    expect(c.rel_diff).toBeCloseTo(38.51 / 49.27 - 1, 3);
    expect(c.verdict).toBe('undetermined');
    expect(eq.equivalent_caps).toEqual([]);
    expect(c.repetitions_needed).toBeGreaterThan(2);
    expect(eq.statement).toMatch(/not enough repetitions to tell: 600 W \(about \d+ repetitions per cap would\)/);
  });

  it('sub-1 % differences with tiny noise are equivalent within the margin, not "distinguishable"', () => {
    const caps = [300, 400, 500];
    const values = [
      [1.0, 1.0001, 0.9999],
      [0.992, 0.9921, 0.9919],
      [0.95, 0.9501, 0.9499],
    ];
    const eq = equivalenceToBest(caps, values, 0, 'max', { margin: 0.02, alpha: 0.05 });
    expect(welchTest(values[0]!, values[1]!)!.p).toBeLessThan(0.001);
    expect(eq.equivalent_caps).toEqual([400]);
    expect(eq.worse_caps).toEqual([500]);
    expect(eq.candidate_caps).toEqual([300, 400]);
    // A margin of 0.5 % makes the 0.8 % gap material.
    expect(equivalenceToBest(caps, values, 0, 'max', { margin: 0.005, alpha: 0.05 }).worse_caps).toEqual([400, 500]);
  });

  it('for "lower is better" metrics, worse means higher', () => {
    const eq = equivalenceToBest([300, 400], [[2.0, 2.001, 1.999], [2.2, 2.201, 2.199]], 0, 'min', { margin: 0.02, alpha: 0.05 });
    expect(eq.caps[1]).toMatchObject({ verdict: 'worse' });
    expect(eq.caps[1]!.rel_diff).toBeCloseTo(-0.1, 6);
  });

  it('property: for random true efficiency curves with noise, the candidate set holds the true best cap at the stated rate', () => {
    const alpha = 0.05;
    const trials = 400;
    let missed = 0;
    for (let k = 0; k < trials; k++) {
      const nCaps = 4 + Math.floor(uniform(11, k, 0) * 5); // 4..8 caps
      const caps = Array.from({ length: nCaps }, (_, i) => 200 + 100 * i);
      const peak = 200 + uniform(11, k, 1) * 100 * (nCaps - 1);
      const width = 150 + uniform(11, k, 2) * 400;
      const truth = caps.map((c) => 1 - ((c - peak) / width) ** 2 * 0.3);
      const noise = 0.005 + uniform(11, k, 3) * 0.04; // 0.5-4.5 % per repetition
      const reps = 2 + Math.floor(uniform(11, k, 4) * 4); // 2..5
      const points = caps.map((cap_w, i) => ({
        cap_w,
        eligible: true,
        runs: Array.from({ length: reps }, (_, r) => ({ throughput: 100, efficiency: truth[i]! * (1 + noise * gaussian(11, k, i, r)) })),
      }));
      const o = selectOptimum(points, 'max-efficiency', { alpha, margin: 0.02 });
      const trueBest = caps[truth.indexOf(Math.max(...truth))]!;
      if (!o.indistinguishable_caps!.includes(trueBest)) missed++;
    }
    // Bonferroni makes the family-wise rate at most alpha; allow binomial noise of 3 sd around it.
    expect(missed / trials).toBeLessThanOrEqual(alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / trials));
  });
});
