import { describe, expect, it } from 'vitest';
import { powerStats, valuesAtRanks } from '../../../src/core/facility/metrics';
import { addPlayed, checkProfile, ProfilePlayer, toSteps } from '../../../src/core/facility/profile';
import { totalPower, perStep } from '../../../src/core/facility/overheads';
import { Overheads } from '../../../src/shared/facility';
import { hourlyShape } from '../../../src/core/facility/calendar';
import { choose, guideTable, normalQuantile, PoissonDraws, Rng, sampler } from '../../../src/core/facility/rng';

describe('facility power statistics', () => {
  it('mean, peak, p99, energy and load-duration curve of a known series', () => {
    // 1,000 steps of 1 min: 980 at 1 MW, 15 at 2 MW, 5 at 3 MW.
    const x = new Float64Array(1000).fill(1e6);
    x.fill(2e6, 100, 115);
    x.fill(3e6, 500, 505);
    const s = powerStats(x, 60);
    expect(s.mean).toBeCloseTo((980 * 1e6 + 15 * 2e6 + 5 * 3e6) / 1000, 3);
    expect(s.peak).toBe(3e6);
    // The top 1 % (10 steps) reaches into the 2 MW block: p99 is 2 MW.
    expect(s.p99).toBe(2e6);
    expect(s.energyMWh).toBeCloseTo((s.mean * 1000 * 60) / 3.6e9, 9);
    expect(s.ldc).toHaveLength(101);
    expect(s.ldc[0]).toBe(3e6);
    expect(s.ldc[1]).toBe(2e6);
    expect(s.ldc[100]).toBe(1e6);
    // Non-increasing.
    for (let i = 1; i < s.ldc.length; i++) expect(s.ldc[i]!).toBeLessThanOrEqual(s.ldc[i - 1]!);
  });

  it('order statistics without a full sort equal those of the sorted series (spread, piled-up and constant values)', () => {
    const rng = new Rng(7);
    const spread = Float64Array.from({ length: 50_000 }, () => 4e6 + 3e6 * rng.next());
    // Most steps at one idle floor, a long thin tail: the floor's bin holds nearly everything.
    const piled = Float64Array.from({ length: 50_000 }, (_, i) => (i % 97 === 0 ? 1e6 + 1e7 * rng.next() : 1.2e6));
    const ranks = [0, 1, 17, 24_999, 25_000, 49_500, 49_998, 49_999];
    for (const x of [spread, piled, new Float64Array(50_000).fill(2e6)]) {
      const sorted = Float64Array.from(x).sort();
      expect(valuesAtRanks(x, ranks)).toEqual(ranks.map((r) => sorted[r]));
    }
  });

  it('ramps: largest change over 1 min and 1 h, null when the step is longer than the window', () => {
    // 10 s steps: a linear rise of 600 kW over 10 min, then a 2 MW drop in one step.
    const x = new Float64Array(2000).fill(1e6);
    for (let i = 100; i < 160; i++) x[i] = 1e6 + (i - 100) * 1e4;
    for (let i = 160; i < 1000; i++) x[i] = 1.6e6;
    for (let i = 1000; i < 2000; i++) x[i] = -0.4e6 + 1e6;
    expect(powerStats(x, 10).ramp1min).toBeCloseTo(1e6, 0);
    expect(powerStats(x, 10).ramp1h).toBeCloseTo(1e6, 0);
    // Over 1 h of the rise alone (60 steps of 1e4 W, then flat): the 1-min window sees 6 steps' worth.
    const rise = x.slice(0, 900);
    expect(powerStats(rise, 10).ramp1min).toBeCloseTo(6e4, 0);
    expect(powerStats(rise, 10).ramp1h).toBeCloseTo(6e5, 0);
    expect(powerStats(x, 3600).ramp1min).toBeNull();
    expect(powerStats(x, 3600).ramp1h).not.toBeNull();
    expect(powerStats(x, 7200).ramp1h).toBeNull();
  });
});

describe('facility profiles', () => {
  it('resamples to step means, keeping energy', () => {
    const t = Array.from({ length: 600 }, (_, i) => i * 0.5);
    const w = t.map((s) => (s < 100 ? 800 : 2600));
    const p = toSteps({ t_s: t, power_w: w }, 60);
    expect(p.values).toHaveLength(5);
    expect(p.values[0]).toBeCloseTo(800, 6);
    expect(p.values[1]).toBeCloseTo((40 * 800 + 20 * 2600) / 60, 6);
    expect(p.values[4]).toBeCloseTo(2600, 6);
    const e = w.reduce((a, x) => a + x * 0.5, 0);
    expect(p.values.reduce((a, x) => a + x * 60, 0)).toBeCloseTo(e, 3);
  });

  it('plays start-up, loops the middle and keeps the wind-down for long jobs; cuts short jobs keeping the end', () => {
    const p = { values: Float64Array.from([1, 2, 3, 4, 9]), head: 1, tail: 1, mean: 0 };
    const long = new Float64Array(12);
    addPlayed(long, p, 1, 10, 1);
    expect(Array.from(long)).toEqual([0, 1, 2, 3, 4, 2, 3, 4, 2, 3, 9, 0]);
    const short = new Float64Array(5);
    addPlayed(short, p, 0, 3, 2);
    expect(Array.from(short)).toEqual([2, 4, 18, 0, 0]);
    // Cut by the horizon: no write past the end.
    const cut = new Float64Array(3);
    addPlayed(cut, p, 1, 10, 1);
    expect(Array.from(cut)).toEqual([0, 1, 2]);
  });

  it('rejects empty, negative, unordered and wrongly scaled profiles naming the field', () => {
    expect(() => checkProfile({ t_s: [], power_w: [] }, 'jobs[0].profile', 3520)).toThrow(/jobs\[0\]\.profile: the profile is empty/);
    expect(() => checkProfile({ t_s: [0, 1], power_w: [100, -1] }, 'p', 3520)).toThrow(/p: reading 1 is negative/);
    expect(() => checkProfile({ t_s: [0, 0], power_w: [100, 100] }, 'p', 3520)).toThrow(/times must increase/);
    expect(() => checkProfile({ t_s: [0, 1], power_w: [2.5e6, 2.6e6] }, 'p', 3520)).toThrow(/wrong units/);
    expect(() => checkProfile({ t_s: [0, 1], power_w: [2.5, 2.6] }, 'p', 3520)).not.toThrow();
    expect(() => checkProfile({ t_s: [0, 1], power_w: [0.5, 0.6] }, 'p', 3520)).toThrow(/wrong units/);
  });
});

describe('facility overheads and calendar', () => {
  it('constant PUE multiplies IT power; cooling rises with outdoor temperature above its reference', () => {
    const it = Float64Array.from([1e6, 2e6]);
    expect(Array.from(totalPower(it, Overheads.parse({ pue: 1.3 }), null))).toEqual([1.3e6, 2.6e6]);
    const o = Overheads.parse({ cooling: { base_fraction: 0.1, per_degc: 0.01, ref_c: 18 }, distribution_loss: 0.05, fixed_w: 1000 });
    const t = Float64Array.from([10, 28]);
    const tot = totalPower(it, o, t);
    expect(tot[0]).toBeCloseTo(1e6 * 1.05 + 1e6 * 0.1 + 1000, 6);
    expect(tot[1]).toBeCloseTo(2e6 * 1.05 + 2e6 * (0.1 + 0.1) + 1000, 6);
  });

  it('year series are held per step and wrap around the year', () => {
    const start = Date.UTC(2025, 0, 1);
    const s = { t_ms: [Date.UTC(2024, 0, 1, 0), Date.UTC(2024, 0, 1, 6), Date.UTC(2024, 0, 1, 12)], value: [10, 20, 30] };
    const v = perStep(s, start, 3600, 24);
    expect(v[0]).toBe(10);
    expect(v[5]).toBe(10);
    expect(v[6]).toBe(20);
    expect(v[23]).toBe(30);
  });

  it('calendar shape has mean 1 and follows weekday and month weights', () => {
    const start = Date.UTC(2025, 0, 6); // a Monday
    const h = hourlyShape(start, 24 * 14, Array(24).fill(1), [1, 1, 1, 1, 1, 0.5, 0.5], Array(12).fill(1));
    expect(h.reduce((a, x) => a + x, 0) / h.length).toBeCloseTo(1, 9);
    expect(h[0]! / h[24 * 5]!).toBeCloseTo(2, 9);
    // Month weights: a quiet August at half of July, across the month boundary (UTC).
    const months = Array(12).fill(1);
    months[7] = 0.5;
    const y = hourlyShape(Date.UTC(2025, 6, 31), 48, Array(24).fill(1), Array(7).fill(1), months);
    expect(y[23]! / y[24]!).toBeCloseTo(2, 9);
    expect(y.reduce((a, x) => a + x, 0) / y.length).toBeCloseTo(1, 9);
  });
});

describe('profile player', () => {
  it('gives the same series as playing every job step by step (long, short and cut-off jobs)', () => {
    const p = toSteps({ t_s: Array.from({ length: 40 }, (_, i) => i * 60), power_w: Array.from({ length: 40 }, (_, i) => 1000 + ((i * 37) % 11) * 100), ramp_s: 240, tail_s: 120 }, 60);
    const steps = 3000;
    const direct = new Float64Array(steps);
    const played = new Float64Array(steps);
    const player = new ProfilePlayer(p, 300);
    let seed = 1;
    const rand = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
    const starts = Array.from({ length: 400 }, () => rand(steps)).sort((a, b) => a - b);
    let next = 0;
    for (let s = 0; s < steps; s++) {
      // Jobs are added at their start step, before that step is played.
      for (; next < starts.length && starts[next] === s; next++) {
        const dur = 1 + rand(300);
        const nodes = 1 + rand(16);
        addPlayed(direct, p, s, dur, nodes);
        player.add(played, s, dur, nodes);
      }
      player.tick();
      // Played in uneven blocks (never more than PLAY_BLOCK steps behind).
      if (s % 37 === 0) player.flush(played, s + 1);
    }
    player.flush(played, steps);
    for (let s = 0; s < steps; s++) expect(played[s]).toBeCloseTo(direct[s]!, 6);
  });

  it('falls back to step-by-step writes when the loop is too long for the phase sum', () => {
    const p = toSteps({ t_s: Array.from({ length: 1000 }, (_, i) => i), power_w: Array.from({ length: 1000 }, (_, i) => 500 + (i % 7)), ramp_s: 10, tail_s: 5 }, 1);
    const direct = new Float64Array(2000);
    const played = new Float64Array(2000);
    const player = new ProfilePlayer(p, 1500);
    addPlayed(direct, p, 3, 1400, 2);
    player.add(played, 3, 1400, 2);
    for (let s = 0; s < 2000; s++) player.tick();
    player.flush(played, 2000);
    expect(Array.from(played)).toEqual(Array.from(direct));
  });
});

describe('facility sampling', () => {
  it('log-normal draws follow the distribution (median, spread, clipping) and the normal quantile is exact', () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
    const s = sampler({ dist: 'lognormal', median: 2, sigma: 0.6, min: 0.5, max: 6 });
    const r = new Rng(3);
    const xs = Array.from({ length: 100_000 }, () => s.draw(r)).sort((a, b) => a - b);
    expect(xs[50_000]!).toBeCloseTo(2, 1);
    // 84th percentile = median x e^sigma.
    expect(xs[84_134]! / (2 * Math.exp(0.6))).toBeCloseTo(1, 1);
    expect(xs[0]!).toBeGreaterThanOrEqual(0.5);
    expect(xs[xs.length - 1]!).toBeLessThanOrEqual(6);
  });

  it('choice by guide table picks what a linear search over the cumulative weights picks', () => {
    // Weights that put cumulative sums on and near the guide's bucket edges (0.25, 0.5 exactly; an empty choice).
    const cum = Float64Array.of(0.1, 0.1, 0.25, 0.5, 0.50000001, 0.9, 1);
    const guide = guideTable(cum);
    const r = new Rng(9);
    const same = new Rng(9);
    for (let i = 0; i < 50_000; i++) {
      const u = same.next();
      let j = 0;
      while (j < cum.length - 1 && u >= cum[j]!) j++;
      expect(choose(r, cum, guide)).toBe(j);
    }
  });

  it('Poisson draws from a per-mean table equal the inversion draw for draw', () => {
    for (const mean of [0, 1e-6, 0.3, 4.05, 17, 49.9, 63]) {
      const table = new PoissonDraws();
      table.setMean(mean);
      const a = new Rng(21);
      const b = new Rng(21);
      for (let i = 0; i < 5000; i++) expect(table.draw(a)).toBe(b.poisson(mean));
    }
  });
});
