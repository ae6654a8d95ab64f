import { describe as suite, expect, it } from 'vitest';
import fc from 'fast-check';
import { describe, linearFit, percentile, tCdf, tQuantile, trend, welchTest, SINGLE_REPETITION_NOTE } from '../../../src/core/analysis/stats';

suite('Student t quantiles (table values)', () => {
  it.each([
    [0.975, 1, 12.7062047],
    [0.975, 2, 4.3026527],
    [0.975, 3, 3.1824463],
    [0.975, 4, 2.7764451],
    [0.975, 9, 2.2621572],
    [0.975, 29, 2.0452296],
    [0.95, 10, 1.8124611],
    [0.995, 3, 5.8409093],
    [0.9, 5, 1.4758840],
  ])('t(%f, %i) = %f', (p, df, want) => {
    expect(tQuantile(p, df)).toBeCloseTo(want, 6);
    expect(tQuantile(1 - p, df)).toBeCloseTo(-want, 6);
  });
  it('large df approaches the normal quantile', () => {
    expect(tQuantile(0.975, Infinity)).toBeCloseTo(1.959964, 6);
    expect(tQuantile(0.975, 1e5)).toBeCloseTo(1.959988, 5);
  });
  it('CDF inverts the quantile, fractional df too', () => {
    for (const df of [1, 2, 3.7, 10, 57.3]) for (const p of [0.6, 0.9, 0.975, 0.999]) expect(tCdf(tQuantile(p, df), df)).toBeCloseTo(p, 10);
  });
  it('rejects nonsense', () => {
    expect(() => tQuantile(1, 3)).toThrow(RangeError);
    expect(() => tQuantile(0.5, 0)).toThrow(RangeError);
  });
});

suite('describe: mean, sd, CV, 95 % CI', () => {
  it('three repetitions 10, 12, 14', () => {
    // mean 12, sd 2, CV 1/6, half-width t(0.975,2) * 2 / sqrt(3) = 4.3026527 * 1.1547005 = 4.9682754
    const s = describe([10, 12, 14]);
    expect(s.mean).toBe(12);
    expect(s.sd).toBeCloseTo(2, 12);
    expect(s.cv).toBeCloseTo(1 / 6, 12);
    expect(s.ci!.t).toBeCloseTo(4.3026527, 6);
    expect(s.ci!.half_width).toBeCloseTo(4.9682754, 6);
    expect(s.ci!.lo).toBeCloseTo(7.0317246, 6);
    expect(s.ci!.hi).toBeCloseTo(16.9682754, 6);
    expect(s.ci!.df).toBe(2);
  });
  it('five repetitions 1..5', () => {
    // sd = sqrt(2.5) = 1.5811388; half-width 2.7764451 * 1.5811388 / sqrt(5) = 1.9632432
    const s = describe([1, 2, 3, 4, 5]);
    expect(s.sd).toBeCloseTo(1.5811388, 6);
    expect(s.ci!.half_width).toBeCloseTo(1.9632432, 6);
  });
  it('two repetitions use t(0.975,1) = 12.706', () => {
    // sd = sqrt(2); half-width 12.7062047 * sqrt(2) / sqrt(2) = 12.7062047
    const s = describe([10, 12]);
    expect(s.ci!.half_width).toBeCloseTo(12.7062047, 6);
  });
  it('single repetition: no sd, no CI, and says so', () => {
    const s = describe([42]);
    expect(s).toMatchObject({ n: 1, mean: 42, sd: null, cv: null, ci: null, note: SINGLE_REPETITION_NOTE });
  });
  it('no data and non-finite values', () => {
    expect(describe([])).toMatchObject({ n: 0, mean: null, ci: null, note: 'no data' });
    expect(describe([NaN, null, undefined, Infinity, 3, 5]).n).toBe(2);
  });
  it('property: the CI narrows as repetitions are added (same spread, more runs)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 2, maxLength: 20 }), (v) => {
        fc.pre(Math.max(...v) - Math.min(...v) > 1e-6);
        const one = describe(v).ci!.half_width;
        const two = describe([...v, ...v]).ci!.half_width;
        expect(two).toBeLessThan(one);
      }),
    );
    // And for a fixed pattern +-1 repeated: t(0.975, n-1) / sqrt(n) * sd shrinks monotonically in n.
    let prev = Infinity;
    for (let n = 2; n <= 30; n++) {
      const h = describe(Array.from({ length: n }, (_, i) => (i % 2 ? 1 : -1))).ci!.half_width;
      expect(h).toBeLessThan(prev);
      prev = h;
    }
  });
});

suite('Welch test, trends, percentiles', () => {
  it('Welch: [1,2,3] vs [4,5,6] gives t = -3.674, df = 4, p = 0.0213 (R t.test)', () => {
    const r = welchTest([1, 2, 3], [4, 5, 6])!;
    expect(r.t).toBeCloseTo(-3.6742346, 6);
    expect(r.df).toBeCloseTo(4, 9);
    expect(r.p).toBeCloseTo(0.02131, 4);
  });
  it('Welch: unequal variances (df by Welch-Satterthwaite)', () => {
    // a: mean 2, var 1, n 3 -> 1/3; b: mean 10, var 80/4 = 20, n 5 -> 4
    // df = (1/3 + 4)^2 / ((1/3)^2/2 + 4^2/4) = 18.777778 / 4.0555556 = 4.6301370; t = -8 / sqrt(13/3) = -3.8430
    const r = welchTest([1, 2, 3], [4, 8, 10, 12, 16])!;
    expect(r.df).toBeCloseTo(4.630137, 5);
    expect(r.t).toBeCloseTo(-8 / Math.sqrt(13 / 3), 9);
  });
  it('Welch: fewer than 2 values is untestable; zero spread decides by the means', () => {
    expect(welchTest([1], [2, 3])).toBeNull();
    expect(welchTest([1, 1], [1, 1])!.p).toBe(1);
    expect(welchTest([1, 1], [2, 2])!.p).toBe(0);
  });
  it('linear fit and trend', () => {
    const f = linearFit([1, 2, 3, 4], [2, 4, 6, 8])!;
    expect(f.slope).toBeCloseTo(2, 12);
    expect(f.p).toBe(0);
    const t = trend([1, 2, 3, 4, 5], [40, 41, 42, 43, 44.1], { minAbsolute: 2 })!;
    expect(t.flagged).toBe(true);
    // slope = Sxy / Sxx = 10.2 / 10 = 1.02 per repetition, change over 4 repetitions = 4.08
    expect(t.change).toBeCloseTo(4.08, 9);
    expect(trend([1, 2, 3, 4, 5], [40, 41, 40, 41, 40])!.flagged).toBe(false);
    expect(trend([1, 2], [1, 2])).toBeNull();
  });
  it('percentile type 7', () => {
    expect(percentile([1, 2, 3, 4, 5], 0.95)).toBeCloseTo(4.8, 12);
    expect(percentile([5, 1, 3], 0.5)).toBe(3);
  });
});
