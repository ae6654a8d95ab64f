// Small helpers on sample series: validity, sorting, piecewise-linear evaluation and integration, time weights.
import type { SensorKind } from '../../shared/device';
import type { TimeWindow } from '../../shared/analysis';

/** The fields of a device sample the analysis reads; every one may be missing or garbage. */
export interface PowerSample {
  t: number;
  power_w?: number | null;
  power_kind?: SensorKind;
  power_avg_w?: number | null;
  energy_mj?: number | null;
  sm_clock_mhz?: number | null;
  mem_clock_mhz?: number | null;
  temp_c?: number | null;
  limit_w?: number | null;
  throttle_reasons?: number | null;
}

export interface Point {
  t: number;
  v: number;
}

export function isReading(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

export function windowValid(w: TimeWindow | null | undefined): w is TimeWindow {
  return !!w && Number.isFinite(w.start) && Number.isFinite(w.end) && w.end > w.start;
}

/** Sorts by t and merges points with the same t (mean of their values). */
export function sortPoints(points: Point[]): Point[] {
  const s = [...points].sort((a, b) => a.t - b.t);
  const out: Point[] = [];
  let i = 0;
  while (i < s.length) {
    let j = i;
    let sum = 0;
    while (j < s.length && s[j]!.t === s[i]!.t) sum += s[j++]!.v;
    out.push({ t: s[i]!.t, v: sum / (j - i) });
    i = j;
  }
  return out;
}

/** Index of the last point with t <= x, or -1. Points sorted by t. */
export function lastAtOrBefore(points: readonly Point[], x: number): number {
  let lo = 0;
  let hi = points.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.t <= x) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

/** Piecewise-linear value at x, held constant beyond the first and last points. */
export function linearAt(points: readonly Point[], x: number): number {
  const i = lastAtOrBefore(points, x);
  if (i < 0) return points[0]!.v;
  if (i >= points.length - 1) return points[points.length - 1]!.v;
  const a = points[i]!;
  const b = points[i + 1]!;
  return a.v + ((b.v - a.v) * (x - a.t)) / (b.t - a.t);
}

/** Exact integral over [a, b] of the piecewise-linear function through the points (held beyond its ends). */
export function integrateLinear(points: readonly Point[], a: number, b: number): number {
  if (points.length === 0 || !(b > a)) return 0;
  let sum = 0;
  let prevT = a;
  let prevV = linearAt(points, a);
  const start = lastAtOrBefore(points, a) + 1;
  for (let i = start; i < points.length && points[i]!.t < b; i++) {
    const p = points[i]!;
    sum += 0.5 * (prevV + p.v) * (p.t - prevT);
    prevT = p.t;
    prevV = p.v;
  }
  sum += 0.5 * (prevV + linearAt(points, b)) * (b - prevT);
  return sum;
}

export function medianInterval(points: readonly { t: number }[]): number {
  if (points.length < 2) return NaN;
  const d: number[] = [];
  for (let i = 1; i < points.length; i++) d.push(points[i]!.t - points[i - 1]!.t);
  d.sort((x, y) => x - y);
  return d[Math.floor(d.length / 2)]!;
}

export function largestGap(points: readonly { t: number }[], a: number, b: number): number {
  let gap = 0;
  let prev = a;
  for (const p of points) {
    if (p.t <= a) continue;
    if (p.t >= b) break;
    gap = Math.max(gap, p.t - prev);
    prev = p.t;
  }
  return Math.max(gap, b - prev);
}

/**
 * Time weight of each point inside [a, b]: half the distance to each neighbour, clipped to the window,
 * so a regular series gets equal weights and the weights sum to the covered time.
 */
export function timeWeights(ts: readonly number[], a: number, b: number): number[] {
  const n = ts.length;
  const w: number[] = [];
  for (let i = 0; i < n; i++) {
    const left = i > 0 ? 0.5 * (ts[i]! + ts[i - 1]!) : a;
    const right = i < n - 1 ? 0.5 * (ts[i]! + ts[i + 1]!) : b;
    w.push(Math.max(0, Math.min(right, b) - Math.max(left, a)));
  }
  return w;
}

/** Best available power figure of a sample for in-window statistics: instant, counter-derived, else the 1 s average. */
export function samplePower(s: PowerSample): { v: number; kind: SensorKind } | null {
  if (isReading(s.power_w)) return { v: s.power_w, kind: s.power_kind ?? 'instant' };
  if (isReading(s.power_avg_w)) return { v: s.power_avg_w, kind: 'average' };
  return null;
}

/** Samples with t inside [start, end], sorted by t. */
export function inWindow<T extends { t: number }>(samples: readonly T[], w: TimeWindow): T[] {
  return samples.filter((s) => Number.isFinite(s.t) && s.t >= w.start && s.t <= w.end).sort((a, b) => a.t - b.t);
}
