// End of warm-up by MSER-5 truncation (White 1997; Franklin & White 2008) on throughput and power series.
import type { SteadySeries } from '../../shared/analysis';

export interface MserResult {
  /** Batches truncated (d*). */
  truncate_batches: number;
  /** Raw points truncated: d* * batch. */
  truncate_index: number;
  batches: number;
  /** Largest d searched: floor(batches / 2). A minimum there means the series never settled. */
  limit: number;
  /** MSER statistic per candidate d (0..limit). */
  statistic: number[];
}

/**
 * MSER-m: average the series in batches of m, then choose the truncation d minimising
 * MSER(d) = sum_{j>=d} (Y_j - mean_{j>=d} Y)^2 / (k - d)^2 over d = 0..floor(k/2) (the first half only: near the end
 * of a series a few batches can agree by chance, the rule's known degenerate case). The tail remainder that does not
 * fill a batch is dropped. null when there are fewer than 2 batches.
 */
export function mser(values: readonly number[], batch = 5): MserResult | null {
  const k = Math.floor(values.length / batch);
  if (k < 2) return null;
  const y: number[] = [];
  for (let j = 0; j < k; j++) {
    let s = 0;
    for (let i = 0; i < batch; i++) s += values[j * batch + i]!;
    y.push(s / batch);
  }
  // Centre on the overall mean so the suffix sums do not cancel catastrophically (a constant series gives exact zeros).
  const centre = y.reduce((a, b) => a + b, 0) / k;
  for (let j = 0; j < k; j++) y[j] = y[j]! - centre;
  // Suffix sums for O(k).
  const sum = new Array<number>(k + 1).fill(0);
  const sumSq = new Array<number>(k + 1).fill(0);
  for (let j = k - 1; j >= 0; j--) {
    sum[j] = sum[j + 1]! + y[j]!;
    sumSq[j] = sumSq[j + 1]! + y[j]! * y[j]!;
  }
  const statistic: number[] = [];
  let best = 0;
  const limit = Math.floor(k / 2);
  for (let d = 0; d <= limit; d++) {
    const n = k - d;
    const m = sum[d]! / n;
    const ss = Math.max(0, sumSq[d]! - n * m * m);
    const stat = ss / (n * n);
    statistic.push(stat);
    // Ties within rounding go to the earliest truncation.
    if (stat < statistic[best]! - 1e-12 * Math.max(1, Math.abs(statistic[best]!))) best = d;
  }
  return { truncate_batches: best, truncate_index: best * batch, batches: k, limit, statistic };
}

/**
 * What a run's steady-state test (run.ts) uses: MSER-5, and at least 10 batches of a series, so 50 points from the
 * first step to the end of the window (a series of fewer than 50 steps is tested unbatched, 10 points at least).
 */
export const MSER_BATCH = 5;
export const MSER_MIN_BATCHES = 10;

export interface SteadyOptions {
  batch?: number;
  /** Fewer batches than this cannot show a steady state. Default 10 (50 points for MSER-5). */
  min_batches?: number;
}

/**
 * Steady state of one series (t ascending). reached = false when the series is too short or the MSER minimum sits
 * at the search limit, half the series (the rule's own signal that the run never settled).
 */
export function detectSteadyState(t: readonly number[], v: readonly number[], opts: SteadyOptions = {}): SteadySeries {
  const batch = opts.batch ?? 5;
  const minBatches = opts.min_batches ?? 10;
  const pts: [number, number][] = [];
  for (let i = 0; i < Math.min(t.length, v.length); i++) if (Number.isFinite(t[i]) && Number.isFinite(v[i])) pts.push([t[i]!, v[i]!]);
  pts.sort((a, b) => a[0] - b[0]);
  const n = pts.length;
  if (n === 0) return { end_t: null, truncate_index: null, n, reached: false, reason: 'no data' };
  const r = mser(
    pts.map((p) => p[1]),
    batch,
  );
  if (!r || r.batches < minBatches)
    return {
      end_t: null,
      truncate_index: null,
      n,
      reached: false,
      reason: `too short for MSER-${batch}: ${n} points, needs at least ${minBatches * batch}`,
    };
  const reached = r.truncate_batches < r.limit;
  return {
    end_t: pts[r.truncate_index]![0],
    truncate_index: r.truncate_index,
    n,
    reached,
    reason: reached ? null : `MSER truncation reaches half the series (${r.truncate_batches} of ${r.batches} batches): no steady state in this run`,
  };
}
