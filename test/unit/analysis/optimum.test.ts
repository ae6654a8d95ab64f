import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { selectOptimum, type OptimumPoint } from '../../../src/core/analysis/optimum';
import { SELECTORS } from '../../../src/shared/analysis';

/** Points from (cap, throughput, node power) with repetitions scaled by factors: efficiency = T / P. */
function pts(rows: [number, number, number][], factors = [0.98, 1, 1.02]): OptimumPoint[] {
  return rows.map(([cap_w, T, P]) => ({ cap_w, eligible: true, runs: factors.map((f) => ({ throughput: T * f, efficiency: (T * f) / P })) }));
}
// T, node power: efficiency 0.5, 0.6, 0.55, 0.45; time per unit 1/T
const grid = pts([
  [100, 50, 100],
  [200, 90, 150],
  [300, 110, 200],
  [400, 117, 260],
]);

describe('selectors', () => {
  it('max-efficiency: highest units/J', () => {
    const o = selectOptimum(grid, 'max-efficiency');
    expect(o).toMatchObject({ cap_w: 200, direction: 'max', metric: 'units/J', at_edge: null });
    expect(o.value).toBeCloseTo(0.6, 12);
  });
  it('min-energy-slowdown: cheapest energy within 10 % of the top cap\'s time per unit', () => {
    // reference 400 W: T = 117 -> T >= 106.36 needed: 300 (110, slowdown 6.4 %) and 400 feasible; 300 has lower J/unit
    const o = selectOptimum(grid, 'min-energy-slowdown');
    expect(o.cap_w).toBe(300);
    expect(o.reference_cap_w).toBe(400);
    // mean J/unit over the repetitions = (200 / 110) * mean(1 / 0.98, 1, 1 / 1.02)
    expect(o.value).toBeCloseTo((200 / 110) * ((1 / 0.98 + 1 + 1 / 1.02) / 3), 12);
    expect(o.scores.find((s) => s.cap_w === 200)).toMatchObject({ feasible: false });
    expect(o.scores.find((s) => s.cap_w === 300)!.slowdown).toBeCloseTo(117 / 110 - 1, 12);
    // A 30 % budget admits 200 W (slowdown 117/90 - 1 = 30 %), the most efficient.
    expect(selectOptimum(grid, 'min-energy-slowdown', { slowdown_budget: 0.3 }).cap_w).toBe(200);
    expect(selectOptimum(grid, 'min-energy-slowdown', { slowdown_budget: 0 }).cap_w).toBe(400);
  });
  it('min-edp: lowest (J/unit)(s/unit)', () => {
    // EDP = P / T^2: 100: 0.04, 200: 0.018519, 300: 0.016529, 400: 0.018993 -> 300
    expect(selectOptimum(grid, 'min-edp').cap_w).toBe(300);
  });
  it('weighted: w = 1 is fastest, w = 0 is most efficient', () => {
    expect(selectOptimum(grid, 'weighted', { weight: 1 }).cap_w).toBe(400);
    expect(selectOptimum(grid, 'weighted', { weight: 0 }).cap_w).toBe(200);
    // w = 0.5: cost = 0.5 (117 / T) + 0.5 (0.6 / eff): 200: 0.65+0.5 = 1.15; 300: 0.5318+0.5455 = 1.0773; 400: 0.5+0.6667
    expect(selectOptimum(grid, 'weighted', { weight: 0.5 }).cap_w).toBe(300);
  });
});

describe('uncertainty and edges', () => {
  it('caps whose efficiency is not distinguishable at 95 % (Welch) are listed', () => {
    // 2 % spread: 200 (0.6) vs 300 (0.55): t = 0.05 / sqrt((0.012^2 + 0.011^2)/3) = 5.32, p = 0.006 -> distinguishable.
    expect(selectOptimum(grid, 'max-efficiency').indistinguishable_caps).toEqual([200]);
    // 8 % spread (sd = 0.08 * mean): 300 vs 200: t = 0.05 / sqrt((0.048^2 + 0.044^2)/3) = 1.33, p = 0.25 -> indistinguishable;
    // 400 (0.45): t = 0.15 / sqrt((0.048^2 + 0.036^2)/3) = 4.33, p = 0.014 -> distinguishable
    const wide = pts(
      [
        [100, 50, 100],
        [200, 90, 150],
        [300, 110, 200],
        [400, 117, 260],
      ],
      [0.92, 1, 1.08],
    );
    const o = selectOptimum(wide, 'max-efficiency');
    expect(o.indistinguishable_caps).toContain(300);
    expect(o.indistinguishable_caps).not.toContain(400);
    expect(o.range_w![0]).toBeLessThanOrEqual(200);
    expect(o.range_w![1]).toBe(300);
  });
  it('single repetition: no indistinguishability claim, and it says so', () => {
    const o = selectOptimum(pts([[100, 50, 100], [200, 90, 150]], [1]), 'max-efficiency');
    expect(o.cap_w).toBe(200);
    expect(o.indistinguishable_caps).toBeNull();
    expect(o.range_w).toBeNull();
    expect(o.note).toMatch(/single repetition/);
  });
  it('flags a best cap at the edge of the grid', () => {
    expect(selectOptimum(pts([[100, 80, 100], [200, 90, 150]]), 'max-efficiency').at_edge).toBe('low');
    expect(selectOptimum(pts([[100, 30, 100], [200, 90, 150]]), 'max-efficiency').at_edge).toBe('high');
    // One cap is no comparison: no best cap by default (issue #25), the lone cap when a minimum of 1 is asked for.
    expect(selectOptimum(pts([[100, 30, 100]]), 'max-efficiency')).toMatchObject({ cap_w: null, at_edge: null, basis: '1 of 1 cap valid' });
    expect(selectOptimum(pts([[100, 30, 100]]), 'max-efficiency', { min_valid_caps: 1 }).at_edge).toBe('single');
  });
  it('excluded caps never win, and are listed with their reason', () => {
    const p = grid.map((x) => (x.cap_w === 200 ? { ...x, eligible: false, excluded_reason: 'cap not enforced' } : x));
    const o = selectOptimum(p, 'max-efficiency');
    expect(o.cap_w).toBe(300);
    expect(o.excluded_caps).toEqual([{ cap_w: 200, reason: 'cap not enforced' }]);
  });
  it('nothing eligible: null with a note', () => {
    const o = selectOptimum([{ cap_w: 100, eligible: true, runs: [{ throughput: NaN, efficiency: 1 }] }], 'min-edp');
    expect(o.cap_w).toBeNull();
    expect(o.note).toMatch(/no eligible caps/);
    expect(selectOptimum([], 'weighted').cap_w).toBeNull();
  });
});

describe('property: the optimum does not depend on the unit of work', () => {
  const point = fc.record({
    T: fc.integer({ min: 10, max: 100_000 }),
    P: fc.integer({ min: 50, max: 2000 }),
    noise: fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 4 }),
  });
  it('scaling units by k leaves every selector\'s best cap and indistinguishable set unchanged', () => {
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 8 }), fc.constantFrom(1e-3, 0.5, 7, 1024, 1e4), (rows, k) => {
        const make = (scale: number): OptimumPoint[] =>
          rows.map((r, i) => ({
            cap_w: 100 + 50 * i,
            eligible: true,
            runs: r.noise.map((n) => {
              const T = r.T * (1 + n / 1000);
              return { throughput: T * scale, efficiency: (T * scale) / r.P };
            }),
          }));
        for (const s of SELECTORS) {
          const a = selectOptimum(make(1), s);
          const b = selectOptimum(make(k), s);
          expect(b.cap_w).toBe(a.cap_w);
          expect(b.indistinguishable_caps).toEqual(a.indistinguishable_caps);
        }
      }),
    );
  });
});
