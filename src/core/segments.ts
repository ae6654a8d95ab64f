// Load phases from a power (or utilisation) trace: binary segmentation on the mean with a BIC-style penalty,
// over the trace binned to at most a few thousand points, then merged back into phases of at least `min_s` seconds.

export interface Phase {
  start: number;
  end: number;
  mean: number;
}

export interface PhaseOptions {
  /** Shortest phase, s: shorter inner ones join their neighbours, shorter ones at the ends are left out. Default 8 (the shortest window energy is trusted over with averaged power). */
  min_s?: number;
  /** A split must lower the squared error by at least penalty * variance * ln(n). Default 3. */
  penalty?: number;
  /** Bin count the trace is reduced to before detection. Default 4000. */
  bins?: number;
  /** Inner phases shorter than this can be transitions, absorbed by their neighbours (see absorbTransitions). Default 2 * min_s; 0 keeps them. */
  transition_s?: number;
  /** The series trails the power by this much, s (a moving-average sensor: see averageLagS): cuts move back by it. Default 0. */
  lag_s?: number;
  /** Adjacent phases whose levels differ by less than this many times the quieter one's spread are one phase. Default 2. */
  merge_sigma?: number;
  /** Adjacent phases closer than this (series units: the sensor's stated accuracy, say) are one phase. Default 0. */
  min_step?: number;
}

/** Accumulates (t, v) readings into equal-time bins over [lo, hi] (NaN readings ignored), in constant memory. */
export class Binner {
  private readonly sum: Float64Array;
  private readonly cnt: Float64Array;
  readonly width: number;

  constructor(
    private readonly lo: number,
    hi: number,
    private readonly bins: number,
  ) {
    this.width = hi > lo ? (hi - lo) / bins : 1;
    this.sum = new Float64Array(bins);
    this.cnt = new Float64Array(bins);
  }

  add(t: number, v: number): void {
    if (Number.isNaN(v) || Number.isNaN(t)) return;
    const k = Math.max(0, Math.min(this.bins - 1, Math.floor((t - this.lo) / this.width)));
    this.sum[k]! += v;
    this.cnt[k]!++;
  }

  /** Means of the non-empty bins at their centres. */
  result(): { t: number[]; v: number[]; width: number } {
    const t: number[] = [];
    const v: number[] = [];
    for (let k = 0; k < this.bins; k++)
      if (this.cnt[k]! > 0) {
        t.push(this.lo + (k + 0.5) * this.width);
        v.push(this.sum[k]! / this.cnt[k]!);
      }
    return { t, v, width: this.width };
  }
}

/**
 * Binner for a trace whose span is not known in advance (an import as it streams): bins are [k w, (k + 1) w) for
 * a power-of-two width w, so when the readings outgrow `bins` bins the width doubles and each new bin is exactly two
 * old ones. Every reading lands in one bin as with Binner; only the grid differs (between bins / 2 and bins of them).
 */
export class GridBinner {
  private sum: Float64Array;
  private cnt: Float64Array;
  private w = 2 ** -10;
  private inv = 2 ** 10;
  /** Bin number (k above) of slot 0. */
  private base = NaN;

  constructor(private readonly bins = 4096) {
    this.sum = new Float64Array(bins);
    this.cnt = new Float64Array(bins);
  }

  add(t: number, v: number): void {
    const j = Math.floor(t * this.inv) - this.base;
    if (j >= 0 && j < this.bins) {
      this.sum[j]! += v;
      this.cnt[j]!++;
    } else this.addBin(t, v, 1);
  }

  /** Adds what another GridBinner holds (widths are powers of two, so its bins nest in this one's after coarsening). */
  merge(o: GridBinner): void {
    if (Number.isNaN(this.base) && this.bins === o.bins) {
      this.sum = o.sum.slice();
      this.cnt = o.cnt.slice();
      this.base = o.base;
      this.w = o.w;
      this.inv = o.inv;
      return;
    }
    while (this.w < o.w) this.coarsen();
    for (let j = 0; j < o.bins; j++) {
      if (!(o.cnt[j]! > 0)) continue;
      const t = (o.base + j + 0.5) * o.w;
      const k = Math.floor(t * this.inv) - this.base;
      if (k >= 0 && k < this.bins) {
        this.sum[k]! += o.sum[j]!;
        this.cnt[k]! += o.cnt[j]!;
      } else this.addBin(t, o.sum[j]!, o.cnt[j]!);
    }
  }

  private addBin(t: number, sum: number, cnt: number): void {
    if (Number.isNaN(t) || Number.isNaN(sum)) return;
    let k = Math.floor(t * this.inv);
    if (Number.isNaN(this.base)) this.base = k;
    // The bins that hold readings, found here rather than kept up to date by add(): this path is rare.
    let first = this.bins;
    let last = -1;
    for (let j = 0; j < this.bins; j++)
      if (this.cnt[j]! > 0) {
        if (first === this.bins) first = j;
        last = j;
      }
    let lo = Math.min(k, last < 0 ? k : this.base + first);
    let hi = Math.max(k, last < 0 ? k : this.base + last);
    while (hi - lo >= this.bins) {
      this.coarsen();
      k = Math.floor(t * this.inv);
      lo = Math.floor(lo / 2);
      hi = Math.floor(hi / 2);
    }
    // Slot 0 moves to keep [lo, hi] in range: down as far as it can go for an early reading, else to lo.
    if (k < this.base) this.rebase(hi - this.bins + 1);
    else if (k >= this.base + this.bins) this.rebase(lo);
    this.sum[k - this.base]! += sum;
    this.cnt[k - this.base]! += cnt;
  }

  private rebase(base: number): void {
    const sum = new Float64Array(this.bins);
    const cnt = new Float64Array(this.bins);
    for (let j = 0; j < this.bins; j++)
      if (this.cnt[j]! > 0) {
        sum[this.base + j - base] = this.sum[j]!;
        cnt[this.base + j - base] = this.cnt[j]!;
      }
    this.sum = sum;
    this.cnt = cnt;
    this.base = base;
  }

  private coarsen(): void {
    const base = Math.floor(this.base / 2);
    const sum = new Float64Array(this.bins);
    const cnt = new Float64Array(this.bins);
    for (let j = 0; j < this.bins; j++)
      if (this.cnt[j]! > 0) {
        const s = Math.floor((this.base + j) / 2) - base;
        sum[s]! += this.sum[j]!;
        cnt[s]! += this.cnt[j]!;
      }
    this.sum = sum;
    this.cnt = cnt;
    if (!Number.isNaN(this.base)) this.base = base;
    this.w *= 2;
    this.inv /= 2;
  }

  /** Means of the non-empty bins at their centres. */
  result(): { t: number[]; v: number[]; width: number } {
    const t: number[] = [];
    const v: number[] = [];
    for (let j = 0; j < this.bins; j++)
      if (this.cnt[j]! > 0) {
        t.push((this.base + j + 0.5) * this.w);
        v.push(this.sum[j]! / this.cnt[j]!);
      }
    return { t, v, width: this.w };
  }
}

/** Bins (t, v) into at most `bins` equal-time bins (mean per bin); empty bins are dropped. */
export function binMeans(t: ArrayLike<number>, v: ArrayLike<number>, bins: number): { t: number[]; v: number[]; width: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < t.length; i++) {
    if (Number.isNaN(v[i]!)) continue;
    lo = Math.min(lo, t[i]!);
    hi = Math.max(hi, t[i]!);
  }
  if (!(hi > lo)) return { t: [], v: [], width: 0 };
  const b = new Binner(lo, hi, bins);
  for (let i = 0; i < t.length; i++) b.add(t[i]!, v[i]!);
  return b.result();
}

/**
 * Phases of a binned series: change points where the mean level shifts.
 *
 * 1. Binary segmentation finds candidate cuts, pieces down to about a second long (so the 1 s ramp of an averaged
 *    sensor or a short transition can be isolated rather than forcing a cut elsewhere).
 * 2. Candidates are merged back where they are no phase change: adjacent pieces whose levels differ by less than
 *    `merge_sigma` times the spread of the quieter piece, `min_step` or 1 % of the largest level (the wander of a noisy plateau, a 1 s average's correlated
 *    noise), or whose cut is no step (just either side of it the level hardly moves: a slow drift cut in two), or,
 *    within twice that floor, whose levels differ by less than 4 times the series' 10 s wander or change less
 *    sharply than the sensor responds (a quiet plateau's slow wander).
 * 3. Ramps between two levels are absorbed (absorbTransitions); an inner piece shorter than `min_s` is cut at the one
 *    step between its neighbours that fits best, and steps 2-3 repeat until nothing changes.
 * 4. Each cut is moved back by `lag_s` (the series' averaging lag); a phase shorter than `min_s` at either end of
 *    the series is left out (the next phase still starts at its step).
 */
export function detectPhases(t: readonly number[], v: readonly number[], width: number, opts: PhaseOptions = {}): Phase[] {
  const n = v.length;
  if (n < 2) return n === 1 ? [{ start: t[0]! - width / 2, end: t[0]! + width / 2, mean: v[0]! }] : [];
  const minS = opts.min_s ?? 8;
  // Bins can be sparser than their width (a 1 Hz log binned finely): count in the series' own spacing.
  const gaps = Array.from({ length: n - 1 }, (_, i) => t[i + 1]! - t[i]!).sort((a, b) => a - b);
  const step = Math.max(width, gaps[gaps.length >> 1]!, 1e-9);
  const bins = (s: number) => Math.max(1, Math.ceil(s / step - 1e-9));
  const minLen = Math.max(2, bins(minS));
  const pieceLen = Math.max(2, Math.min(bins(1), Math.floor(minLen / 2)));
  const s1 = new Float64Array(n + 1);
  const s2 = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    s1[i + 1] = s1[i]! + v[i]!;
    s2[i + 1] = s2[i]! + v[i]! * v[i]!;
  }
  const sum = (a: number, b: number) => s1[b]! - s1[a]!;
  const mean = (a: number, b: number) => sum(a, b) / (b - a);
  const sse = (a: number, b: number) => Math.max(0, s2[b]! - s2[a]! - (sum(a, b) * sum(a, b)) / (b - a));
  const sd = (a: number, b: number) => Math.sqrt(sse(a, b) / (b - a));
  const sigma = noiseSigma(v, bins(2));
  const threshold = (opts.penalty ?? 3) * sigma * sigma * Math.log(n);
  const cuts: number[] = [];
  const split = (a: number, b: number) => {
    if (b - a < 2 * pieceLen) return;
    const whole = sse(a, b);
    let best = -1;
    let gain = 0;
    for (let k = a + pieceLen; k <= b - pieceLen; k++) {
      const g = whole - sse(a, k) - sse(k, b);
      if (g > gain) {
        gain = g;
        best = k;
      }
    }
    if (best < 0 || gain < threshold) return;
    cuts.push(best);
    split(a, best);
    split(best, b);
  };
  split(0, n);
  cuts.sort((x, y) => x - y);
  /** The cut in [from, to] (bins) that best splits [lo, hi) into two levels. */
  const bestCut = (lo: number, hi: number, from: number, to: number) => {
    let cut = -1;
    let best = Infinity;
    for (let k = Math.max(from, lo + 1); k <= Math.min(to, hi - 1); k++) {
      const e = sse(lo, k) + sse(k, hi);
      if (e < best) {
        best = e;
        cut = k;
      }
    }
    return cut;
  };
  const kSigma = opts.merge_sigma ?? 2;
  // Levels closer than min_step, or 1 % of the series' largest, are one level, however quiet the trace.
  const floor = Math.max(opts.min_step ?? 0, 0.01 * v.reduce((m, x) => Math.max(m, Math.abs(x)), 0));
  const near = bins(3);
  const skip = bins(1);
  // The sensor's response, bins: a step shows within one bin of instant readings, within 2 lag_s (its window) of a
  // moving average's; and the bins either side it is judged over.
  const resp = bins(2 * (opts.lag_s ?? 0));
  const q = Math.max(2, resp);
  // How far the level wanders over 10 s (robust to the few steps, like sigma).
  const wander = noiseSigma(v, bins(10));
  /** Whether the cut b[i] between two pieces is no phase change (see step 2). */
  const noChange = (b: readonly number[], i: number) => {
    const [lo, c, hi] = [b[i - 1]!, b[i]!, b[i + 1]!];
    const d = Math.abs(mean(lo, c) - mean(c, hi));
    if (d < Math.max(kSigma * Math.min(sd(lo, c), sd(c, hi)), floor)) return true;
    // The level just either side of the cut, a second clear of it (a ramp), where the pieces are long enough.
    const g = Math.min(skip, Math.floor((c - lo) / 3), Math.floor((hi - c) / 3));
    const l0 = Math.max(lo, c - g - near);
    const r1 = Math.min(hi, c + g + near);
    if (c - g - l0 < 2 || r1 - (c + g) < 2) return false;
    if (Math.abs(mean(l0, c - g) - mean(c + g, r1)) < 0.5 * d) return true;
    // Levels within twice the stated accuracy: one level where the series' own slow wander moves that much (a ~2 W
    // rms wander over 5-10 s, no white noise, gives pieces 5-8 W apart), unless the change is as sharp as the sensor
    // (a step of instant readings lies between two bins; a wander rarely moves that fast).
    if (d >= 2 * floor) return false;
    if (d < 4 * wander) return true;
    let sharpest = 0;
    for (let k = Math.max(lo + q, c - near); k <= Math.min(hi - resp - q, c + near); k++) sharpest = Math.max(sharpest, Math.abs(mean(k - q, k) - mean(k + resp, k + resp + q)));
    return sharpest < 0.5 * d;
  };
  let bounds = [0, ...cuts, n];
  for (let changed = true; changed; ) {
    changed = false;
    // The least different mergeable pair first, so a plateau is rebuilt from its pieces before its edges are judged.
    for (;;) {
      let pick = -1;
      let pickD = Infinity;
      for (let i = 1; i + 1 < bounds.length; i++) {
        const d = Math.abs(mean(bounds[i - 1]!, bounds[i]!) - mean(bounds[i]!, bounds[i + 1]!));
        if (d < pickD && noChange(bounds, i)) {
          pick = i;
          pickD = d;
        }
      }
      if (pick < 0) break;
      bounds.splice(pick, 1);
      changed = true;
    }
    const absorbed = absorbTransitions(bounds, v, sse, (opts.transition_s ?? 2 * minS) / step, skip);
    if (absorbed.length !== bounds.length) changed = true;
    bounds = absorbed;
    let shortest = -1;
    for (let i = 1; i + 2 < bounds.length; i++) {
      const len = bounds[i + 1]! - bounds[i]!;
      if (len < minLen && (shortest < 0 || len < bounds[shortest + 1]! - bounds[shortest]!)) shortest = i;
    }
    if (shortest >= 0) {
      const cut = bestCut(bounds[shortest - 1]!, bounds[shortest + 2]!, bounds[shortest]!, bounds[shortest + 1]!);
      bounds.splice(shortest, 2, cut);
      changed = true;
    }
  }
  // Each edge where a two-level fit of its own two phases puts it. The splits above placed it while their range still
  // held other levels, whose mean can pull a reading at the step to the wrong side (a 60 -> 200 W edge read one
  // sample late because the piece right of it also held a 400 W plateau).
  for (let i = 1; i + 1 < bounds.length; i++) {
    const cut = bestCut(bounds[i - 1]!, bounds[i + 1]!, bounds[i]! - near, bounds[i]! + near);
    if (cut > 0) bounds[i] = cut;
  }
  const lag = opts.lag_s ?? 0;
  const edge = (k: number) => (k === 0 ? t[0]! - step / 2 : k === n ? t[n - 1]! + step / 2 : (t[k - 1]! + t[k]!) / 2 - lag);
  const phases: Phase[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const a = bounds[i]!;
    const b = bounds[i + 1]!;
    phases.push({ start: edge(a), end: edge(b), mean: mean(a, b) });
  }
  // A short phase at an end of the series is a partial one (the log began or stopped inside it): not a phase.
  if (phases.length > 1 && bounds[1]! - bounds[0]! < minLen) phases.shift();
  if (phases.length > 1 && bounds[bounds.length - 1]! - bounds[bounds.length - 2]! < minLen) phases.pop();
  return phases;
}

/**
 * Noise of a plateau, per bin: median |v[i + lag] - v[i]| / 0.6745 / sqrt(2), at lag 1 and at `lag` bins (about
 * 2 s), the larger. Differences are robust to the few level shifts; the longer lag also sees the noise of a
 * moving-average sensor read faster than its window, whose neighbouring readings share most of their second.
 */
function noiseSigma(v: readonly number[], lag: number): number {
  const at = (l: number) => {
    if (v.length <= l) return 0;
    const d = Array.from({ length: v.length - l }, (_, i) => Math.abs(v[i + l]! - v[i]!)).sort((a, b) => a - b);
    return d[d.length >> 1]! / 0.6745 / Math.SQRT2;
  };
  return Math.max(1e-6, at(1), at(lag));
}

/**
 * The rule for transitions: an inner phase shorter than `maxLen` bins whose mean lies between its neighbours' means
 * and whose own linear trend covers at least half of the smaller gap to them is a ramp from one level to the next,
 * not a load phase. It is cut where one step between its neighbours fits best (least squares) and each part joins
 * the neighbour on its side; the shortest such phase goes first, and the check repeats on the merged phases, so a
 * ramp cut into several pieces goes whole; the trend leaves out `edgeBins` at each end (the sensor's own lag ramps).
 * Flat in-between phases (a staircase of caps) and peaks or dips (a short burst) are kept.
 */
function absorbTransitions(bounds: number[], v: readonly number[], sse: (a: number, b: number) => number, maxLen: number, edgeBins: number): number[] {
  const mean = (a: number, b: number) => {
    let s = 0;
    for (let i = a; i < b; i++) s += v[i]!;
    return s / (b - a);
  };
  // Rise of the least-squares line through bins [a, b), in the series' units.
  const rise = (a: number, b: number) => {
    const m = b - a;
    let sx = 0;
    let sv = 0;
    let sxx = 0;
    let sxv = 0;
    for (let i = a; i < b; i++) {
      sx += i;
      sv += v[i]!;
      sxx += i * i;
      sxv += i * v[i]!;
    }
    const den = m * sxx - sx * sx;
    return den > 0 ? (Math.abs(m * sxv - sx * sv) / den) * (m - 1) : 0;
  };
  const b = [...bounds];
  for (;;) {
    let pick = -1;
    for (let i = 1; i + 2 < b.length; i++) {
      const len = b[i + 1]! - b[i]!;
      if (len >= maxLen || (pick >= 0 && len >= b[pick + 1]! - b[pick]!)) continue;
      const [l, m, r] = [mean(b[i - 1]!, b[i]!), mean(b[i]!, b[i + 1]!), mean(b[i + 1]!, b[i + 2]!)];
      if ((m - l) * (r - m) <= 0) continue;
      // The trend of the phase's inside: a flat plateau read through a 1 s average starts and ends on the sensor's
      // own ramps, which alone can tilt a short one's line as much as a real transition's.
      const g = Math.min(edgeBins, Math.floor(len / 4));
      if (rise(b[i]! + g, b[i + 1]! - g) < 0.5 * Math.min(Math.abs(m - l), Math.abs(r - m))) continue;
      pick = i;
    }
    if (pick < 0) return b;
    const lo = b[pick - 1]!;
    const hi = b[pick + 2]!;
    let cut = b[pick]!;
    let best = Infinity;
    for (let k = b[pick]!; k <= b[pick + 1]!; k++) {
      if (k === lo || k === hi) continue;
      const e = sse(lo, k) + sse(k, hi);
      if (e < best) {
        best = e;
        cut = k;
      }
    }
    b.splice(pick, 2, cut);
  }
}
