import { describe, expect, it } from 'vitest';
import { jobTable } from '../../../src/core/facility/job-table';
import { choose, Rng, sampler } from '../../../src/core/facility/rng';
import { toSteps } from '../../../src/core/facility/profile';
import type { ResolvedJobType } from '../../../src/core/facility/training';

const profile = toSteps({ t_s: [0, 60], power_w: [1000, 2000] }, 60);
const type = (name: string, share: number, nodes: Parameters<typeof sampler>[0]): ResolvedJobType => ({
  name,
  share,
  nodes: sampler(nodes),
  durationH: sampler({ dist: 'fixed', value: 1 }),
  profile,
  stretch: 1,
});

describe('facility joint type-and-node-count draw', () => {
  const types = [
    type('a', 3, { dist: 'choice', values: [1, 4, 64], weights: [0.5, 0, 0.5] }),
    type('b', 1, { dist: 'fixed', value: 2.6 }),
    type('c', 0, { dist: 'fixed', value: 8 }),
    type('d', 2, { dist: 'uniform', min: 1, max: 5 }),
  ];

  it('lists each possible pair once with weight share x probability; zero weights left out; continuous counts drawn after', () => {
    const t = jobTable(types, 32);
    expect(Array.from(t.type)).toEqual([0, 0, 1, 3]);
    // 64 is clamped to the pool of 32, 2.6 rounds to 3; -1 marks a count still to be drawn.
    expect(Array.from(t.nodes)).toEqual([1, 32, 3, -1]);
    const probs = Array.from(t.cum, (c, i) => c - (i > 0 ? t.cum[i - 1]! : 0));
    [0.25, 0.25, 1 / 6, 1 / 3].forEach((p, i) => expect(probs[i]).toBeCloseTo(p, 12));
    expect(t.cum[t.cum.length - 1]).toBeCloseTo(1, 12);
  });

  it('draws pairs at their frequencies', () => {
    const t = jobTable(types, 32);
    const r = new Rng(4);
    const n = 200_000;
    const hits = new Float64Array(t.cum.length);
    for (let i = 0; i < n; i++) hits[choose(r, t.cum, t.guide)]! += 1;
    // 5 sd of a binomial at p = 1/3 over 200,000 draws is about 0.005.
    [0.25, 0.25, 1 / 6, 1 / 3].forEach((p, i) => expect(Math.abs(hits[i]! / n - p)).toBeLessThan(0.006));
  });
});
