import { describe, expect, it } from 'vitest';
import { binMeans, detectPhases } from '../../src/core/segments';

describe('load phase detection', () => {
  it('finds idle -> load -> half load -> idle with boundaries within a bin, ignoring noise', () => {
    const t: number[] = [];
    const v: number[] = [];
    let seed = 7;
    const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 40;
    for (let i = 0; i < 2000; i++) {
      const x = i * 0.1;
      t.push(x);
      v.push((x < 40 ? 120 : x < 120 ? 610 : x < 160 ? 400 : 125) + noise());
    }
    const b = binMeans(t, v, 400);
    const phases = detectPhases(b.t, b.v, b.width);
    expect(phases.map((p) => Math.round(p.mean / 50) * 50)).toEqual([100, 600, 400, 150]);
    expect(phases.slice(1).map((p) => p.start)).toEqual([expect.closeTo(40, 0), expect.closeTo(120, 0), expect.closeTo(160, 0)]);
  });
  it('keeps a flat trace as one phase and drops phases shorter than min_s', () => {
    const t = Array.from({ length: 600 }, (_, i) => i * 0.1);
    const flat = detectPhases(t, t.map(() => 300), 0.1);
    expect(flat).toHaveLength(1);
    const blip = detectPhases(t, t.map((x) => (x > 30 && x < 33 ? 600 : 300)), 0.1, { min_s: 8 });
    expect(blip.every((p) => p.end - p.start >= 8 - 1e-9)).toBe(true);
  });
});
