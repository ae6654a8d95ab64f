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

describe('transitions between load phases', () => {
  // 10 Hz readings with +-10 W noise; `shape` gives the true power.
  const trace = (shape: (x: number) => number, seconds: number) => {
    const t: number[] = [];
    const v: number[] = [];
    let seed = 11;
    const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 20;
    for (let i = 0; i < seconds * 10; i++) {
      t.push(i * 0.1);
      v.push(shape(i * 0.1) + noise());
    }
    const b = binMeans(t, v, 4000);
    return { b, phases: detectPhases(b.t, b.v, b.width) };
  };

  it('absorbs a 12 s ramp up and a decay tail into their neighbours, cut where the level crosses half-way', () => {
    const shape = (x: number) => (x < 60 ? 120 : x < 72 ? 120 + ((x - 60) / 12) * 480 : x < 180 ? 600 : 120 + 480 * Math.exp(-(x - 180) / 6));
    const { b, phases } = trace(shape, 300);
    // Kept apart (transition_s 0) the ramp and the tail are five short in-between phases.
    const raw = detectPhases(b.t, b.v, b.width, { transition_s: 0 });
    expect(raw.length).toBeGreaterThanOrEqual(6);
    expect(raw.filter((p) => p.end - p.start < 16).length).toBeGreaterThanOrEqual(3);
    expect(phases.map((p) => Math.round(p.mean / 100) * 100)).toEqual([100, 600, 100]);
    expect(phases[1]!.start).toBeCloseTo(66, 0);
    // The decay crosses 360 W at 180 + 6 ln 2 = 184.2 s.
    expect(Math.abs(phases[1]!.end - (180 + 6 * Math.LN2))).toBeLessThan(0.6);
  });

  it('keeps a staircase of 10 s flat steps and a 10 s burst: only ramps are transitions', () => {
    const stairs = trace((x) => (x < 30 ? 700 : x < 40 ? 600 : x < 50 ? 500 : 400), 80).phases;
    expect(stairs.map((p) => Math.round(p.mean / 100) * 100)).toEqual([700, 600, 500, 400]);
    const burst = trace((x) => (x > 30 && x < 40 ? 600 : 300), 80).phases;
    expect(burst.map((p) => Math.round(p.mean / 100) * 100)).toEqual([300, 600, 300]);
  });
});
