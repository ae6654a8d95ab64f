import { describe, expect, it } from 'vitest';
import { binMeans, detectPhases, GridBinner } from '../../src/core/segments';

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
    // The ramp's pieces are each shorter than min_s: they go to their neighbours even with the ramp rule off.
    const raw = detectPhases(b.t, b.v, b.width, { transition_s: 0 });
    expect(raw.map((p) => Math.round(p.mean / 100) * 100)).toEqual([100, 600, 100]);
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

describe('GridBinner (bins for a trace whose span is not known in advance)', () => {
  // Readings out of order, some before the first one, over a span that forces the width to double many times.
  const readings = () => {
    const r: [number, number][] = [];
    let seed = 5;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 20_000; i++) r.push([1.7e9 + 5000 + (rnd() - 0.3) * 9000, 100 + rnd() * 500]);
    return r;
  };
  /** The same readings binned by brute force on the grid the binner ended with. */
  const bruteForce = (r: [number, number][], width: number) => {
    const bins = new Map<number, { s: number; n: number }>();
    for (const [t, v] of r) {
      const k = Math.floor(t / width);
      const b = bins.get(k) ?? { s: 0, n: 0 };
      b.s += v;
      b.n++;
      bins.set(k, b);
    }
    return [...bins].sort((a, b) => a[0] - b[0]).map(([k, b]) => ({ t: (k + 0.5) * width, v: b.s / b.n }));
  };

  it('puts every reading in the bin [k w, (k + 1) w) of its final power-of-two width, within the bin budget', () => {
    const r = readings();
    const g = new GridBinner(512);
    for (const [t, v] of r) g.add(t, v);
    const out = g.result();
    expect(Math.log2(out.width) % 1).toBe(0);
    expect(out.t.length).toBeGreaterThan(256);
    expect(out.t.length).toBeLessThanOrEqual(512);
    const want = bruteForce(r, out.width);
    expect(out.t).toEqual(want.map((b) => b.t));
    out.v.forEach((v, i) => expect(v).toBeCloseTo(want[i]!.v, 9));
  });

  it('merging binners gives the bins of one binner fed all readings, whatever their widths', () => {
    const r = readings();
    const whole = new GridBinner(512);
    const a = new GridBinner(512);
    const b = new GridBinner(512);
    r.forEach(([t, v], i) => {
      whole.add(t, v);
      // b sees a narrow window only (a finer grid than a's).
      if (i % 3 === 0 && t < 1.7e9 + 3000) b.add(t, v);
      else a.add(t, v);
    });
    a.merge(b);
    const m = a.result();
    const empty = new GridBinner(512);
    empty.merge(whole);
    expect(empty.result()).toEqual(whole.result());
    const w = whole.result();
    expect(m.width).toBe(w.width);
    expect(m.t).toEqual(w.t);
    m.v.forEach((v, i) => expect(v).toBeCloseTo(w.v[i]!, 9));
  });

  it('finds the same load phases as binning over the known span', () => {
    const t: number[] = [];
    const v: number[] = [];
    const g = new GridBinner();
    for (let i = 0; i < 20_000; i++) {
      const x = 1.7e9 + i * 0.1;
      const p = (i < 4000 ? 120 : i < 12_000 ? 610 : i < 16_000 ? 400 : 125) + ((i * 7919) % 40);
      t.push(x);
      v.push(p);
      g.add(x, p);
    }
    const known = binMeans(t, v, 4000);
    const grid = g.result();
    const starts = (b: { t: number[]; v: number[]; width: number }) => detectPhases(b.t, b.v, b.width).map((p) => p.start - 1.7e9);
    expect(starts(grid).slice(1)).toEqual(starts(known).slice(1).map((s) => expect.closeTo(s, 0)));
  });
});
