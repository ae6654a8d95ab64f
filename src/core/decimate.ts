/**
 * Min/max decimation for plots: split the time span into buckets and keep, per bucket, the smallest and the largest
 * value (in time order), so spikes and dips survive however many points are dropped. Pure; no DOM, no Node.
 */
export interface XY {
  t: number[];
  v: (number | null)[];
}

/**
 * Decimates points [start, end) of parallel arrays t (ascending) and v to at most maxPoints points.
 * A bucket holding only nulls yields one null point, so gaps stay gaps in the plotted line.
 */
export function decimateMinMax(
  t: ArrayLike<number>,
  v: ArrayLike<number | null>,
  maxPoints: number,
  start = 0,
  end = t.length,
): XY {
  const n = Math.max(0, end - start);
  const out: XY = { t: [], v: [] };
  if (n === 0) return out;
  if (n <= maxPoints || maxPoints < 2) {
    for (let i = start; i < end; i++) {
      out.t.push(t[i]!);
      const x = v[i];
      out.v.push(x == null || Number.isNaN(x) ? null : x);
    }
    return out;
  }
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const t0 = t[start]!;
  const span = t[end - 1]! - t0;
  // Equal time buckets; when all samples share one timestamp, fall back to equal index buckets.
  const bucketOf = span > 0 ? (i: number) => Math.min(buckets - 1, Math.floor(((t[i]! - t0) / span) * buckets)) : (i: number) => Math.min(buckets - 1, Math.floor(((i - start) / n) * buckets));
  let cur = -1;
  let minI = -1;
  let maxI = -1;
  let firstI = -1;
  const flush = () => {
    if (cur < 0) return;
    if (minI < 0) {
      out.t.push(t[firstI]!);
      out.v.push(null);
    } else if (minI === maxI) {
      out.t.push(t[minI]!);
      out.v.push(v[minI]!);
    } else {
      const a = Math.min(minI, maxI);
      const b = Math.max(minI, maxI);
      out.t.push(t[a]!, t[b]!);
      out.v.push(v[a]!, v[b]!);
    }
  };
  for (let i = start; i < end; i++) {
    const b = bucketOf(i);
    if (b !== cur) {
      flush();
      cur = b;
      minI = maxI = -1;
      firstI = i;
    }
    const x = v[i];
    if (x == null || Number.isNaN(x)) continue;
    if (minI < 0 || x < v[minI]!) minI = i;
    if (maxI < 0 || x > v[maxI]!) maxI = i;
  }
  flush();
  return out;
}

/** Fixed-capacity time series (oldest points fall off): the bounded window behind a live trace. */
export class RingSeries {
  readonly t: Float64Array;
  readonly v: Float64Array;
  private head = 0;
  private len = 0;

  constructor(readonly capacity: number) {
    this.t = new Float64Array(capacity);
    this.v = new Float64Array(capacity);
  }

  get length(): number {
    return this.len;
  }

  push(t: number, v: number | null): void {
    const i = (this.head + this.len) % this.capacity;
    this.t[i] = t;
    this.v[i] = v == null ? NaN : v;
    if (this.len < this.capacity) this.len++;
    else this.head = (this.head + 1) % this.capacity;
  }

  clear(): void {
    this.head = 0;
    this.len = 0;
  }

  last(): { t: number; v: number | null } | null {
    if (this.len === 0) return null;
    const i = (this.head + this.len - 1) % this.capacity;
    const v = this.v[i]!;
    return { t: this.t[i]!, v: Number.isNaN(v) ? null : v };
  }

  /** Points with t >= since, decimated to at most maxPoints. Copies only the part of the ring that is needed. */
  decimated(maxPoints: number, since = -Infinity): XY {
    const cap = this.capacity;
    const len = this.len;
    const head = this.head;
    const tt = this.t;
    // Binary search for the first logical index with t >= since, reading the ring in place.
    let lo = 0;
    if (since > -Infinity) {
      let hi = len;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (tt[(head + mid) % cap]! < since) lo = mid + 1;
        else hi = mid;
      }
    }
    const n = len - lo;
    if (!this.scratchT || this.scratchT.length !== cap) {
      this.scratchT = new Float64Array(cap);
      this.scratchV = new Float64Array(cap);
    }
    const st = this.scratchT;
    const sv = this.scratchV!;
    // Unroll [lo, len) into the scratch arrays in at most two block copies.
    const from = (head + lo) % cap;
    const first = Math.min(n, cap - from);
    st.set(tt.subarray(from, from + first), 0);
    sv.set(this.v.subarray(from, from + first), 0);
    if (n > first) {
      st.set(tt.subarray(0, n - first), first);
      sv.set(this.v.subarray(0, n - first), first);
    }
    return decimateMinMax(st, sv, maxPoints, 0, n);
  }

  private scratchT: Float64Array | null = null;
  private scratchV: Float64Array | null = null;
}
