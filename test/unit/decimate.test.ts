import { describe, expect, it } from 'vitest';
import { decimateMinMax, RingSeries, WindowDecimator } from '../../src/core/decimate';

describe('decimateMinMax', () => {
  it('returns the input unchanged when it already fits', () => {
    expect(decimateMinMax([1, 2, 3], [5, null, 7], 10)).toEqual({ t: [1, 2, 3], v: [5, null, 7] });
    expect(decimateMinMax([], [], 10)).toEqual({ t: [], v: [] });
  });

  it('keeps each bucket\'s min and max in time order and never exceeds maxPoints', () => {
    const n = 10_000;
    const t = Array.from({ length: n }, (_, i) => i * 0.1);
    const v = t.map((x) => Math.sin(x) * 100);
    v[4321] = 1000; // a spike
    v[7777] = -1000; // a dip
    const d = decimateMinMax(t, v, 200);
    expect(d.t.length).toBeLessThanOrEqual(200);
    expect(d.t.length).toBeGreaterThan(150);
    expect(Math.max(...(d.v as number[]))).toBe(1000);
    expect(Math.min(...(d.v as number[]))).toBe(-1000);
    for (let i = 1; i < d.t.length; i++) expect(d.t[i]!).toBeGreaterThan(d.t[i - 1]!);
  });

  it('keeps gaps: an all-null bucket becomes one null point', () => {
    const t = Array.from({ length: 100 }, (_, i) => i);
    const v: (number | null)[] = t.map((i) => (i >= 40 && i < 60 ? null : i));
    const d = decimateMinMax(t, v, 20);
    expect(d.v.filter((x) => x === null).length).toBeGreaterThan(0);
    expect(d.v.filter((x) => x !== null).every((x) => x! < 40 || x! >= 60)).toBe(true);
  });

  it('honours a start/end sub-range', () => {
    const t = [0, 1, 2, 3, 4, 5];
    const v = [0, 10, 20, 30, 40, 50];
    expect(decimateMinMax(t, v, 10, 2, 4)).toEqual({ t: [2, 3], v: [20, 30] });
  });
});

describe('RingSeries', () => {
  it('keeps the newest capacity points and decimates them in order', () => {
    const r = new RingSeries(1000);
    for (let i = 0; i < 2500; i++) r.push(i, i % 7 === 3 ? null : i);
    expect(r.length).toBe(1000);
    expect(r.last()).toEqual({ t: 2499, v: 2499 });
    const all = r.decimated(5000);
    expect(all.t[0]).toBe(1500);
    expect(all.t.at(-1)).toBe(2499);
    expect(all.v[all.t.indexOf(1501)]).toBeNull(); // 1501 % 7 === 3
    const d = r.decimated(100, 2000);
    expect(d.t[0]).toBeGreaterThanOrEqual(2000);
    expect(d.t.length).toBeLessThanOrEqual(100);
    expect(Math.max(...(d.v.filter((x) => x !== null) as number[]))).toBe(2499);
  });
});

describe('WindowDecimator (incremental live windows)', () => {
  /** A seeded noise source, so a failure replays. */
  const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

  it('a window kept up to date frame by frame equals the same window decimated afresh', () => {
    const ring = new RingSeries(8000);
    const inc = new WindowDecimator(ring, 600, 600);
    const rand = rng(7);
    let t = 1_800_000_000;
    for (let frame = 0; frame < 200; frame++) {
      const batch = 1 + Math.floor(rand() * 120);
      for (let k = 0; k < batch; k++) {
        t += 0.1;
        ring.push(t, rand() < 0.02 ? null : 100 + rand() * 50);
      }
      const since = t - 600;
      expect(inc.window(since), `frame ${frame}`).toEqual(new WindowDecimator(ring, 600, 600).window(since));
    }
  });

  it('keeps the window\'s spike and dip, in time order, within the window, never over maxPoints; a spike leaves with its window', () => {
    const ring = new RingSeries(36_000);
    const inc = new WindowDecimator(ring, 600, 600);
    let t = 0;
    let spikeT = NaN;
    let dipT = NaN;
    for (let frame = 0; frame < 300; frame++) {
      for (let k = 0; k < 50; k++) {
        t += 0.1;
        const spike = frame === 40 && k === 17;
        const dip = frame === 90 && k === 3;
        if (spike) spikeT = t;
        if (dip) dipT = t;
        ring.push(t, spike ? 5000 : dip ? -5000 : 200 + Math.sin(t));
      }
      const since = t - 600;
      const d = inc.window(since);
      expect(d.t.length).toBeLessThanOrEqual(600);
      for (let i = 1; i < d.t.length; i++) expect(d.t[i]!).toBeGreaterThan(d.t[i - 1]!);
      expect(d.t[0]!).toBeGreaterThanOrEqual(since);
      const vs = d.v as number[];
      if (frame >= 40) expect(Math.max(...vs) === 5000, `frame ${frame}`).toBe(spikeT >= since);
      if (frame >= 90) expect(Math.min(...vs) === -5000, `frame ${frame}`).toBe(dipT >= since);
    }
    expect(t - 600).toBeGreaterThan(dipT); // both did leave the window above
  });

  it('draws a window still filling finer than a full one, and a small window point for point', () => {
    const ring = new RingSeries(36_000);
    const inc = new WindowDecimator(ring, 600, 600);
    for (let i = 0; i < 300; i++) ring.push(i * 0.1, i);
    const raw = inc.window(-Infinity);
    expect(raw.t.length).toBe(300);
    expect(raw.v[123]).toBe(123);
    // 120 s of 10 Hz readings: the full window's buckets (2 s) would leave 120 points; the finer ones keep over 300.
    for (let i = 300; i < 1200; i++) ring.push(i * 0.1, i);
    const filling = inc.window(-Infinity);
    expect(filling.t.length).toBeGreaterThan(300);
    expect(filling.t.length).toBeLessThanOrEqual(600);
    expect(filling).toEqual(new WindowDecimator(ring, 600, 600).window(-Infinity));
  });

  it('starts over when the ring is cleared or more points came than it holds, and keeps gaps as nulls', () => {
    const ring = new RingSeries(2000);
    const inc = new WindowDecimator(ring, 100, 100);
    for (let i = 0; i < 1500; i++) ring.push(i * 0.1, i >= 500 && i < 700 ? null : 10);
    const a = inc.window(149.9 - 100);
    expect(a.v).toContain(null);
    expect(a.v.filter((v) => v !== null).every((v) => v === 10)).toBe(true);
    ring.clear();
    for (let i = 0; i < 1500; i++) ring.push(i * 0.1, 20);
    expect(inc.window(149.9 - 100).v.every((v) => v === 20)).toBe(true);
    // 5000 new points through a ring of 2000: those that fell off were never seen, so the window is rebuilt.
    for (let i = 1500; i < 6500; i++) ring.push(i * 0.1, 30);
    const c = inc.window(649.9 - 100);
    expect(c).toEqual(new WindowDecimator(ring, 100, 100).window(649.9 - 100));
    expect(c.v.every((v) => v === 30)).toBe(true);
  });
});
