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

/** Histogram bins for order statistics: a few per LDC point's neighbourhood keeps the bins sorted at the end small. */
const RANK_BINS = 4096;

/**
 * The values of the given ranks (0-based, ascending order) of x, exact, without sorting all of x: a histogram between
 * min and max finds the bin of each rank, and only the values of those bins are collected and sorted.
 */
export function valuesAtRanks(x: Float64Array, ranks: readonly number[], range = minMax(x)): number[] {
  const { min, max } = range;
  if (!(max > min)) return ranks.map(() => min);
  const scale = RANK_BINS / (max - min);
  const starts = binStarts(x, min, scale);
  const wanted = new Int32Array(RANK_BINS).fill(-1);
  const bins = [...new Set(ranks.map((r) => binOfRank(starts, r)))];
  const buffers = bins.map((b, k) => {
    wanted[b] = k;
    return new Float64Array(starts[b + 1]! - starts[b]!);
  });
  collect(x, min, scale, wanted, buffers);
  for (const b of buffers) b.sort();
  return ranks.map((r) => {
    const b = binOfRank(starts, r);
    return buffers[wanted[b]!]![r - starts[b]!]!;
  });
}

// The passes over x are functions of their own (as is powerStats' scan): a loop compiled on-stack inside a longer
// function lacks feedback for the code after it, which then deoptimises and compiles again on every run.
/** Cumulative bin counts: values of bin b are ranks starts[b] .. starts[b + 1] - 1. */
function binStarts(x: Float64Array, min: number, scale: number): Int32Array {
  const starts = new Int32Array(RANK_BINS + 1);
  for (let i = 0; i < x.length; i++) starts[binOf(x[i]!, min, scale) + 1]!++;
  for (let b = 0; b < RANK_BINS; b++) starts[b + 1]! += starts[b]!;
  return starts;
}

/** The values of the wanted bins into their buffers. */
function collect(x: Float64Array, min: number, scale: number, wanted: Int32Array, buffers: Float64Array[]): void {
  const fill = new Int32Array(buffers.length);
  for (let i = 0; i < x.length; i++) {
    const k = wanted[binOf(x[i]!, min, scale)]!;
    if (k >= 0) buffers[k]![fill[k]!++] = x[i]!;
  }
}

// Top-level, not closures made per call: the passes over x call one function every time (a new closure each call
// would send the compiled loops back with "wrong call target").
function binOf(v: number, min: number, scale: number): number {
  return Math.min(RANK_BINS - 1, Math.floor((v - min) * scale));
}

/** The bin holding rank r, by bisection on the bins' cumulative starts. */
function binOfRank(starts: Int32Array, r: number): number {
  let lo = 0;
  let hi = RANK_BINS - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid + 1]! > r) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function minMax(x: Float64Array): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}

export function powerStats(x: Float64Array, stepS: number): PowerStats {
  const n = x.length;
  const lagMin = stepS > 60 ? 0 : Math.round(60 / stepS);
  const lagHour = stepS > 3600 ? 0 : Math.round(3600 / stepS);
  const { sum, min, max, rampMin, rampHour } = scan(x, lagMin, lagHour);
  const rank = (q: number) => Math.min(n - 1, Math.max(0, q));
  const ldcRanks = Array.from({ length: LDC_POINTS }, (_, i) => rank(Math.round((1 - i / (LDC_POINTS - 1)) * (n - 1))));
  const values = valuesAtRanks(x, [...ldcRanks, rank(Math.ceil(0.99 * n) - 1)], { min, max });
  const ldc = values.slice(0, LDC_POINTS);
  return {
    mean: sum / n,
    peak: ldc[0]!,
    p99: values[LDC_POINTS]!,
    ramp1min: lagMin > 0 ? rampMin : null,
    ramp1h: lagHour > 0 ? rampHour : null,
    energyMWh: (sum * stepS) / 3.6e9,
    ldc,
  };
}

/** One pass for the sum, the range and both ramps (a year at 1 min is 4 MB: each pass over it counts); lag 0: no ramp. */
function scan(x: Float64Array, lagMin: number, lagHour: number) {
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  let rampMin = 0;
  let rampHour = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
    if (lagMin > 0 && i >= lagMin) rampMin = Math.max(rampMin, Math.abs(v - x[i - lagMin]!));
    if (lagHour > 0 && i >= lagHour) rampHour = Math.max(rampHour, Math.abs(v - x[i - lagHour]!));
  }
  return { sum, min, max, rampMin, rampHour };
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

/** A level's series at full resolution (replica 1), kept for the page's zoom; `grid` with a grid config. */
export interface FullSeries {
  it: Float32Array | Float64Array;
  total: Float32Array | Float64Array;
  grid?: Float32Array | Float64Array;
}

/**
 * The steps of [fromH, toH) of a full-resolution series: every step while there are at most `maxPoints`, else bucket
 * means (the whole year is 525,600 steps at 1 min; a week at 1 min, 10,080, comes back step by step).
 */
export function seriesSlice(s: FullSeries, stepS: number, fromH: number, toH: number, maxPoints: number) {
  const n = s.it.length;
  const a = Math.max(0, Math.min(n, Math.floor((fromH * 3600) / stepS)));
  const b = Math.max(a, Math.min(n, Math.ceil((toH * 3600) / stepS)));
  const cut = (x: Float32Array | Float64Array) => bucketMeans(x.subarray(a, b), maxPoints);
  const it = cut(s.it);
  return {
    from_h: (a * stepS) / 3600,
    to_h: (b * stepS) / 3600,
    step_s: stepS,
    bucket_s: it.size * stepS,
    t_h: it.values.map((_, i) => ((a + i * it.size) * stepS) / 3600),
    it_w: it.values,
    total_w: cut(s.total).values,
    grid_w: s.grid ? cut(s.grid).values : null,
  };
}
