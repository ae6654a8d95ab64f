/** Points of the load-duration curve: power exceeded 0 %, 1 %, … 100 % of the time. */
export const LDC_POINTS = 101;

export interface PowerStats {
  mean: number;
  peak: number;
  p99: number;
  /** Largest change of power over 1 min / 1 h (either direction); null when the step is longer than the window. */
  ramp1min: number | null;
  ramp1h: number | null;
  energyMWh: number;
  ldc: number[];
}

export function powerStats(x: Float64Array, stepS: number): PowerStats {
  const n = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i]!;
  const sorted = Float64Array.from(x).sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!;
  const ldc: number[] = [];
  for (let i = 0; i < LDC_POINTS; i++) ldc.push(sorted[Math.min(n - 1, Math.max(0, Math.round((1 - i / (LDC_POINTS - 1)) * (n - 1))))]!);
  return {
    mean: sum / n,
    peak: sorted[n - 1]!,
    p99: at(0.99),
    ramp1min: maxRamp(x, stepS, 60),
    ramp1h: maxRamp(x, stepS, 3600),
    energyMWh: (sum * stepS) / 3.6e9,
    ldc,
  };
}

export function maxRamp(x: Float64Array, stepS: number, windowS: number): number | null {
  if (stepS > windowS) return null;
  const lag = Math.round(windowS / stepS);
  let m = 0;
  for (let i = lag; i < x.length; i++) {
    const d = Math.abs(x[i]! - x[i - lag]!);
    if (d > m) m = d;
  }
  return m;
}

/** Means of consecutive buckets so a series has at most `max` points (plots; power is an average per bucket). */
export function bucketMeans(x: ArrayLike<number>, max: number): { size: number; values: number[] } {
  const size = Math.max(1, Math.ceil(x.length / max));
  const values: number[] = [];
  for (let i = 0; i < x.length; i += size) {
    const end = Math.min(x.length, i + size);
    let s = 0;
    for (let j = i; j < end; j++) s += x[j]!;
    values.push(s / (end - i));
  }
  return { size, values };
}
