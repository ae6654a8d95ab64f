import { describe, expect, it } from 'vitest';
import { jobTable, type ResolvedJobType } from '../../../src/core/facility/job-table';
import { aliasTable, drawAlias, Rng, sampler } from '../../../src/core/facility/rng';
import { toSteps } from '../../../src/core/facility/profile';

const profile = toSteps({ t_s: [0, 60], power_w: [1000, 2000] }, 60);
const type = (name: string, share: number, nodes: Parameters<typeof sampler>[0], durationH: Parameters<typeof sampler>[0] = { dist: 'fixed', value: 1 }, stretch = 1): ResolvedJobType => ({
  name,
  share,
  nodes: sampler(nodes),
  durationH: sampler(durationH),
  profile,
  stretch,
});

describe('facility joint type, node-count and duration draw', () => {
  const types = [
    type('a', 3, { dist: 'choice', values: [1, 4, 64], weights: [0.5, 0, 0.5] }),
    type('b', 1, { dist: 'fixed', value: 2.6 }, { dist: 'choice', values: [0.5, 2], weights: [1, 3] }, 2),
    type('c', 0, { dist: 'fixed', value: 8 }),
    type('d', 2, { dist: 'uniform', min: 1, max: 5 }),
  ];

  it('lists each possible triple once with weight share x probabilities; zero weights left out; continuous counts drawn after', () => {
    // 1-h steps: type a lasts 1 step, b 0.5 h or 2 h stretched x2 = 1 or 4 steps.
    const t = jobTable(types, 32, 3600);
    expect(Array.from(t.type)).toEqual([0, 0, 1, 1, 3]);
    // 64 is clamped to the pool of 32, 2.6 rounds to 3; -1 marks a count still to be drawn.
    expect(Array.from(t.nodes)).toEqual([1, 32, 3, 3, -1]);
    expect(Array.from(t.dur)).toEqual([1, 1, 1, 4, 1]);
    const want = [0.25, 0.25, 1 / 24, 1 / 8, 1 / 3];
    const r = new Rng(4);
    const n = 300_000;
    const hits = new Float64Array(want.length);
    for (let i = 0; i < n; i++) hits[drawAlias(r, t)]! += 1;
    // 5 sd of a binomial at p = 1/3 over 300,000 draws is about 0.0043.
    want.forEach((p, i) => expect(Math.abs(hits[i]! / n - p)).toBeLessThan(0.0045));
  });

  it('durations too fine for a table (many whole steps) are left to a per-job draw', () => {
    const t = jobTable([type('long', 1, { dist: 'fixed', value: 2 }, { dist: 'uniform', min: 1, max: 100 })], 32, 1);
    expect(Array.from(t.dur)).toEqual([-1]);
  });
});

describe('alias table', () => {
  it('gives every outcome its weight exactly (bucket shares add up per outcome)', () => {
    const w = [5, 0, 1, 1e-9, 3, 7, 0.5];
    const { prob, alias } = aliasTable(w);
    const n = w.length;
    const total = w.reduce((a, b) => a + b, 0);
    const share = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      share[i]! += prob[i]! / n;
      share[alias[i]!]! += (1 - prob[i]!) / n;
    }
    w.forEach((x, i) => expect(share[i]).toBeCloseTo(x / total, 12));
  });
});

describe('whole-step durations', () => {
  it('a log-normal table rounded to steps has the probabilities of its own draws', () => {
    const s = sampler({ dist: 'lognormal', median: 1, sigma: 0.6, min: 0.2, max: 8 });
    const f = 60; // hours to 1-min steps
    const o = s.roundedOutcomes(f, 10_000)!;
    expect(o.values[0]).toBe(12);
    expect(o.values[o.values.length - 1]).toBe(480);
    expect(o.probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const r = new Rng(7);
    const n = 400_000;
    const hits = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const d = Math.max(1, Math.floor(s.draw(r) * f + 0.5));
      hits.set(d, (hits.get(d) ?? 0) + 1);
    }
    // Clipped at 0.2 h: a point mass at 12 steps; the median at 60 steps; every value within 5 sd of its count.
    o.values.forEach((v, k) => {
      const p = o.probs[k]!;
      expect(Math.abs((hits.get(v) ?? 0) / n - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / n) + 1e-6);
    });
    expect(o.probs[0]).toBeGreaterThan(0.003);
    const below60 = o.values.reduce((a, v, k) => a + (v < 60 ? o.probs[k]! : 0), 0);
    expect(below60).toBeGreaterThan(0.48);
    expect(below60).toBeLessThan(0.5);
    expect(s.roundedOutcomes(f, 100)).toBeNull();
  });
});
