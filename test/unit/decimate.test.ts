import { describe, expect, it } from 'vitest';
import { decimateMinMax, RingSeries } from '../../src/core/decimate';

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
