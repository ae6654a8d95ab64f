import { describe, expect, it } from 'vitest';
import { orderBatch, proposeRepetitions, type RepetitionInput } from '../../../src/core/sweep/adaptive-repetitions';
import type { OptimumPoint } from '../../../src/core/analysis/optimum';
import { gaussian } from '../../../src/core/sim/random';

/** A hill-shaped efficiency curve with its best at 350 W; run k at a cap draws seeded noise of `sd`. */
const truth = (cap: number) => 1 - ((cap - 350) / 400) ** 2;
function point(cap: number, n: number, sd: number, seed = 1): OptimumPoint {
  return { cap_w: cap, eligible: true, runs: Array.from({ length: n }, (_, k) => ({ throughput: 100, efficiency: truth(cap) * (1 + sd * gaussian(seed, cap, k)) })) };
}
const base = { selector: 'max-efficiency', margin: 0.02, alpha: 0.05, max_per_cap: 5, runs_left: 100 } as const satisfies Omit<RepetitionInput, 'points'>;
const caps = [200, 250, 300, 325, 350, 375, 400, 500, 600, 700];

describe('sequential repetitions: only where the answer is undecided, until decided or at the budget', () => {
  it('after a single first pass nothing is decided: one more repetition at every cap, the best one too', () => {
    const p = proposeRepetitions({ ...base, points: caps.map((c) => point(c, 1, 0.003)) });
    expect(p.done).toBe(false);
    expect(p.runs.map((r) => r.cap_w).sort((a, b) => a - b)).toEqual(caps);
    expect(p.runs.every((r) => r.repetition === 2)).toBe(true);
    const r = p.runs.find((x) => x.cap_w === 325)!;
    expect(r.reason).toBe(`repetition 2, deciding whether it is within 2 % of ${p.best_cap_w} W`);
  });

  it('repeats only the undecided caps; decided ones (clearly worse, clearly equivalent) get no more runs', () => {
    // max_per_cap 20: enough repetitions that none of the undecided caps is beyond deciding.
    const p = proposeRepetitions({ ...base, max_per_cap: 20, points: caps.map((c) => point(c, 3, 0.003)) });
    expect(p.done).toBe(false);
    const repeated = p.runs.map((r) => r.cap_w).filter((c) => c !== p.best_cap_w);
    expect(repeated.length).toBeGreaterThan(0);
    expect(repeated.length).toBeLessThan(caps.length - 1);
    for (const c of repeated) expect(p.undecided_caps).toContain(c);
    for (const far of [200, 600, 700]) expect(repeated).not.toContain(far);
  });

  it('stops when every place is decided', () => {
    const p = proposeRepetitions({ ...base, points: [point(300, 4, 0.0005), point(350, 4, 0.0005), point(600, 4, 0.0005)] });
    expect(p).toMatchObject({ done: true, why: 'decided', runs: [] });
  });

  it('stops at the run budget and never proposes more than it', () => {
    const pts = caps.map((c) => point(c, 1, 0.003));
    expect(proposeRepetitions({ ...base, points: pts, runs_left: 3 }).runs).toHaveLength(3);
    expect(proposeRepetitions({ ...base, points: pts, runs_left: 0 })).toMatchObject({ done: true, why: 'budget', runs: [] });
  });

  it('counts flagged runs against max_per_cap and numbers the next repetition after them', () => {
    // Each cap made 2 runs, one of them flagged out of the decisions (1 counted): with max_per_cap 3 the next run at
    // a cap is its 3rd and the last, and at max_per_cap 2 nothing more is run, although one counted run says little.
    const pts = caps.map((c) => point(c, 1, 0.003));
    const made = new Map(caps.map((c) => [c, 2]));
    const p = proposeRepetitions({ ...base, max_per_cap: 3, points: pts, made });
    expect(p.runs.length).toBeGreaterThan(0);
    for (const r of p.runs) {
      expect(r.repetition).toBe(3);
      expect(r.reason).toMatch(/^repetition 3/);
    }
    expect(proposeRepetitions({ ...base, max_per_cap: 2, points: pts, made })).toMatchObject({ done: true, why: 'max-per-cap', runs: [] });
  });

  it('stops at max_per_cap when caps stay undecided (a difference right on the margin)', () => {
    // 300 W sits 2 % below the best, right on the margin, with 1 % run noise: 5 repetitions cannot decide it.
    const edge: OptimumPoint = { cap_w: 300, eligible: true, runs: Array.from({ length: 5 }, (_, k) => ({ throughput: 1, efficiency: 0.98 * (1 + 0.01 * gaussian(3, k)) })) };
    const best: OptimumPoint = { cap_w: 350, eligible: true, runs: Array.from({ length: 5 }, (_, k) => ({ throughput: 1, efficiency: 1 + 0.01 * gaussian(4, k) })) };
    expect(proposeRepetitions({ ...base, points: [edge, best] })).toMatchObject({ done: true, why: 'max-per-cap', undecided_caps: [300] });
  });

  it('spends no run on a cap that, by its spread, max_per_cap repetitions could not decide', () => {
    // The same curve at 3 repetitions, max_per_cap 5: 300 and 400 W sit ~1.6 % below the best with 0.3 % run noise and
    // would need ~10 repetitions each to be told from the 2 % margin.
    const p = proposeRepetitions({ ...base, points: caps.map((c) => point(c, 3, 0.003)) });
    expect(p).toMatchObject({ done: true, why: 'max-per-cap', runs: [] });
    expect(p.undecided_caps).toEqual(expect.arrayContaining([300, 400]));
    expect(p.note).toMatch(/300 W would need about \d+/);
  });

  it('does not give up on a cap that one more repetition may decide', () => {
    // 0.1 % noise: at 2 repetitions 325 W is undecided, and about 3 would settle it, within max_per_cap 5.
    const pts = caps.map((c) => point(c, 2, 0.001));
    const p = proposeRepetitions({ ...base, points: pts });
    expect(p.done).toBe(false);
    expect(p.runs.length).toBeGreaterThan(0);
    for (const r of p.runs) expect(r.repetition).toBe(3);
  });

  it('run to the end on a noisy curve, it ends decided or at a bound, within the budget', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const counts = new Map(caps.map((c) => [c, 1]));
      let spent = 0;
      const budget = 40;
      for (let round = 0; round < 100; round++) {
        const pts = caps.map((c) => point(c, counts.get(c)!, 0.004, seed));
        const p = proposeRepetitions({ ...base, points: pts, runs_left: budget - spent });
        if (p.done) {
          expect(['decided', 'budget', 'max-per-cap']).toContain(p.why);
          break;
        }
        for (const r of p.runs) counts.set(r.cap_w, r.repetition);
        spent += p.runs.length;
      }
      expect(spent).toBeLessThanOrEqual(budget);
      for (const n of counts.values()) expect(n).toBeLessThanOrEqual(base.max_per_cap);
    }
  });
});

describe('pool_single: caps measured once are judged on the pooled spread, the best cap and its neighbours go first', () => {
  const pool = { ...base, pool_single: true } as const;
  it('after a single first pass only the best cap and its two neighbours are repeated', () => {
    const p = proposeRepetitions({ ...pool, points: caps.map((c) => point(c, 1, 0.003)) });
    const at = caps.indexOf(p.best_cap_w!);
    expect(p.runs.map((r) => r.cap_w).sort((a, b) => a - b)).toEqual([caps[at - 1], caps[at], caps[at + 1]]);
  });

  it('at the lowest cap measured its one neighbour goes with it', () => {
    const edge = [350, 400, 500, 600].map((c) => point(c, 1, 0.003));
    expect(proposeRepetitions({ ...pool, points: edge }).runs.map((r) => r.cap_w).sort((a, b) => a - b)).toEqual([350, 400]);
  });

  it('then far caps measured once are decided without a repetition; near ones are still repeated', () => {
    const pts = caps.map((c) => point(c, [325, 350, 375].includes(c) ? 2 : 1, 0.003));
    // max_per_cap 50: enough that the caps measured once near the best (300, 400 W, ~1.6 % below it) can be decided.
    const p = proposeRepetitions({ ...pool, max_per_cap: 50, points: pts });
    const repeated = p.runs.map((r) => r.cap_w);
    for (const far of [200, 500, 600, 700]) expect(repeated).not.toContain(far);
    expect(p.done).toBe(false);
    expect(repeated).toEqual(expect.arrayContaining([300, 400]));
    // At max_per_cap 5 their spread says 5 runs would not decide them: they stay undecided, in the set, unrepeated.
    const five = proposeRepetitions({ ...pool, points: pts });
    expect(five.undecided_caps).toEqual(expect.arrayContaining([300, 400]));
    expect(five.runs.map((r) => r.cap_w)).not.toContain(300);
    // Without pooling the caps measured once stay undecided and every one of them is repeated.
    const own = proposeRepetitions({ ...base, points: pts }).runs.map((r) => r.cap_w);
    for (const far of [200, 600, 700]) expect(own).toContain(far);
  });

  it('run to the end it stays within max_per_cap and the budget and uses fewer runs than without pooling', () => {
    const spent = (pool_single: boolean) => {
      const counts = new Map(caps.map((c) => [c, 1]));
      let n = 0;
      for (let round = 0; round < 100; round++) {
        const p = proposeRepetitions({ ...base, pool_single, points: caps.map((c) => point(c, counts.get(c)!, 0.003, 9)), runs_left: 40 - n });
        if (p.done) break;
        for (const r of p.runs) counts.set(r.cap_w, r.repetition);
        n += p.runs.length;
      }
      for (const c of counts.values()) expect(c).toBeLessThanOrEqual(base.max_per_cap);
      return n;
    };
    const pooled = spent(true);
    expect(pooled).toBeLessThanOrEqual(40);
    expect(pooled).toBeLessThan(spent(false));
  });
});

describe('the order of added repetitions stays randomised', () => {
  const batch = Array.from({ length: 12 }, (_, k) => 200 + 25 * k);
  it('randomized plans shuffle each batch, the same way for the same seed and round, differently for another round', () => {
    const a = orderBatch(batch, 'randomized', 7, 1);
    expect([...a].sort((x, y) => x - y)).toEqual(batch);
    expect(a).not.toEqual(batch);
    expect(orderBatch(batch, 'randomized', 7, 1)).toEqual(a);
    expect(orderBatch(batch, 'randomized', 7, 2)).not.toEqual(a);
  });
  it('sequential plans keep the proposed order', () => {
    expect(orderBatch(batch, 'sequential', 7, 1)).toEqual(batch);
  });
});
