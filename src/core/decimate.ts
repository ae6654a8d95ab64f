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

/** The first index i in [0, n) with get(i) >= x, for ascending get (n when none). */
export function lowerBound(n: number, x: number, get: (i: number) => number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (get(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Fixed-capacity time series (oldest points fall off): the bounded window behind a live trace. */
export class RingSeries {
  readonly t: Float64Array;
  readonly v: Float64Array;
  private head = 0;
  private len = 0;
  /** Points pushed since the last clear (a point's absolute index), and clears so far: incremental readers follow them. */
  private pushes = 0;
  private clears = 0;

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
    this.pushes++;
  }

  clear(): void {
    this.head = 0;
    this.len = 0;
    this.pushes = 0;
    this.clears++;
  }

  get pushed(): number {
    return this.pushes;
  }

  get generation(): number {
    return this.clears;
  }

  /** Time of the point at logical index i (0: oldest kept). */
  tAt(i: number): number {
    return this.t[(this.head + i) % this.capacity]!;
  }

  /** Value of the point at logical index i; NaN for a missing reading. */
  vAt(i: number): number {
    return this.v[(this.head + i) % this.capacity]!;
  }

  /** Logical index of the first point with t >= since (length when none). */
  lowerBound(since: number): number {
    return lowerBound(this.len, since, (i) => this.tAt(i));
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
    const lo = since > -Infinity ? this.lowerBound(since) : 0;
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

/**
 * Min/max decimation of a RingSeries over a sliding window, kept up to date incrementally: buckets are fixed in
 * absolute time (key floor(t / width)), so a frame folds in only the points pushed since the previous frame and drops
 * the buckets that left the window, instead of re-decimating the whole window (60 ms a frame at 8 GPUs x 10 Hz).
 * Width is windowS / buckets halved k times, the least k whose buckets still cover the data's span, so a window
 * still filling is drawn finer; widening merges bucket pairs, which is exact for min/max. The oldest, partial bucket
 * is recomputed from the points inside the window. While the window holds at most maxPoints points they are drawn
 * as they are, as decimateMinMax does.
 */
export class WindowDecimator {
  private readonly buckets: number;
  private width = 0;
  // Parallel bucket arrays in key order: the min and max points (-1 index none yet) and the first time seen.
  private key: number[] = [];
  private minT: number[] = [];
  private minV: number[] = [];
  private maxT: number[] = [];
  private maxV: number[] = [];
  private firstT: number[] = [];
  private seen = 0;
  private generation = -1;

  constructor(
    private readonly ring: RingSeries,
    readonly windowS: number,
    readonly maxPoints: number,
  ) {
    // Up to buckets + 1 buckets overlap a window (the oldest partly), two points each.
    this.buckets = Math.max(1, Math.floor(maxPoints / 2) - 1);
  }

  /** The window [since, newest] decimated to at most maxPoints points (gaps as null). */
  window(since: number): XY {
    const ring = this.ring;
    const lo = ring.lowerBound(since);
    const n = ring.length - lo;
    if (n <= this.maxPoints || this.maxPoints < 2) {
      this.generation = -1;
      const out: XY = { t: new Array<number>(n), v: new Array<number | null>(n) };
      for (let i = 0; i < n; i++) {
        out.t[i] = ring.tAt(lo + i);
        const x = ring.vAt(lo + i);
        out.v[i] = Number.isNaN(x) ? null : x;
      }
      return out;
    }
    const span = ring.tAt(ring.length - 1) - ring.tAt(lo);
    if (this.generation !== ring.generation || ring.pushed - this.seen > ring.length) this.rebuild(span);
    else this.widen(span);
    this.fold(Math.max(0, ring.length - (ring.pushed - this.seen)), ring.length);
    this.seen = ring.pushed;
    this.drop(since);
    return this.emit(since, lo);
  }

  private rebuild(span: number): void {
    this.generation = this.ring.generation;
    this.seen = this.ring.pushed;
    for (const a of this.columns) a.length = 0;
    this.width = 0;
    this.widen(span);
    this.fold(0, this.ring.length);
  }

  /** Doubles the bucket width (merging bucket pairs) until `span` fits in the buckets, up to windowS / buckets. */
  private widen(span: number): void {
    const top = this.windowS / this.buckets;
    if (this.width === 0) {
      this.width = top;
      while (this.width / 2 >= span / this.buckets && this.width > 1e-9) this.width /= 2;
      return;
    }
    while (this.width < top && span > this.width * this.buckets) {
      this.width *= 2;
      let w = -1;
      for (let r = 0; r < this.key.length; r++) {
        const k = Math.floor(this.key[r]! / 2);
        if (w >= 0 && this.key[w] === k) {
          this.mergeInto(w, r);
          continue;
        }
        w++;
        this.key[w] = k;
        this.minT[w] = this.minT[r]!;
        this.minV[w] = this.minV[r]!;
        this.maxT[w] = this.maxT[r]!;
        this.maxV[w] = this.maxV[r]!;
        this.firstT[w] = this.firstT[r]!;
      }
      for (const a of this.columns) a.length = w + 1;
    }
  }

  /** Every bucket column, for what is done to all of them alike (clear, cut, drop). */
  private get columns(): number[][] {
    return [this.key, this.minT, this.minV, this.maxT, this.maxV, this.firstT];
  }

  private mergeInto(w: number, r: number): void {
    this.firstT[w] = Math.min(this.firstT[w]!, this.firstT[r]!);
    this.absorbMin(w, this.minT[r]!, this.minV[r]!);
    this.absorbMax(w, this.maxT[r]!, this.maxV[r]!);
  }

  /** Bucket b's minimum becomes (t, v) where v is lower (a missing reading, NaN, never is). */
  private absorbMin(b: number, t: number, v: number): void {
    if (Number.isNaN(v) || !(Number.isNaN(this.minV[b]!) || v < this.minV[b]!)) return;
    this.minT[b] = t;
    this.minV[b] = v;
  }

  /** Bucket b's maximum becomes (t, v) where v is higher (a missing reading, NaN, never is). */
  private absorbMax(b: number, t: number, v: number): void {
    if (Number.isNaN(v) || !(Number.isNaN(this.maxV[b]!) || v > this.maxV[b]!)) return;
    this.maxT[b] = t;
    this.maxV[b] = v;
  }

  /** Adds ring points [from, to) to their buckets. */
  private fold(from: number, to: number): void {
    const ring = this.ring;
    for (let i = from; i < to; i++) {
      const t = ring.tAt(i);
      const v = ring.vAt(i);
      const k = Math.floor(t / this.width);
      let b = this.key.length - 1;
      if (b < 0 || this.key[b]! < k) b = this.insert(this.key.length, k, t);
      else if (this.key[b]! !== k) {
        // A point older than the newest bucket (rare): find or make its bucket.
        const at = lowerBound(this.key.length, k, (i) => this.key[i]!);
        b = this.key[at] === k ? at : this.insert(at, k, t);
      }
      this.firstT[b] = Math.min(this.firstT[b]!, t);
      this.absorbMin(b, t, v);
      this.absorbMax(b, t, v);
    }
  }

  private insert(at: number, k: number, t: number): number {
    this.key.splice(at, 0, k);
    this.minT.splice(at, 0, t);
    this.minV.splice(at, 0, NaN);
    this.maxT.splice(at, 0, t);
    this.maxV.splice(at, 0, NaN);
    this.firstT.splice(at, 0, t);
    return at;
  }

  /** Drops the buckets that end at or before `since`. */
  private drop(since: number): void {
    let n = 0;
    while (n < this.key.length && (this.key[n]! + 1) * this.width <= since) n++;
    if (n) for (const a of this.columns) a.splice(0, n);
  }

  private emit(since: number, lo: number): XY {
    const out: XY = { t: [], v: [] };
    const push = (tMin: number, vMin: number, tMax: number, vMax: number, first: number) => {
      if (Number.isNaN(vMin)) {
        out.t.push(first);
        out.v.push(null);
      } else if (tMin === tMax) {
        out.t.push(tMin);
        out.v.push(vMin);
      } else if (tMin < tMax) {
        out.t.push(tMin, tMax);
        out.v.push(vMin, vMax);
      } else {
        out.t.push(tMax, tMin);
        out.v.push(vMax, vMin);
      }
    };
    let b = 0;
    // The oldest bucket may start before the window: recomputed from its points inside it.
    if (this.key.length && this.key[0]! * this.width < since) {
      const end = (this.key[0]! + 1) * this.width;
      let tMin = NaN;
      let vMin = NaN;
      let tMax = NaN;
      let vMax = NaN;
      let first = NaN;
      for (let i = lo; i < this.ring.length && this.ring.tAt(i) < end; i++) {
        const t = this.ring.tAt(i);
        const v = this.ring.vAt(i);
        if (Number.isNaN(first)) first = t;
        if (Number.isNaN(v)) continue;
        if (Number.isNaN(vMin) || v < vMin) [tMin, vMin] = [t, v];
        if (Number.isNaN(vMax) || v > vMax) [tMax, vMax] = [t, v];
      }
      if (!Number.isNaN(first)) push(tMin, vMin, tMax, vMax, first);
      b = 1;
    }
    for (; b < this.key.length; b++) push(this.minT[b]!, this.minV[b]!, this.maxT[b]!, this.maxV[b]!, this.firstT[b]!);
    return out;
  }
}
