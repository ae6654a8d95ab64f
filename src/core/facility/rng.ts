import type { Distribution } from '../../shared/facility';

// Constants first: the hot methods below read them without a check that they are initialised yet.
/** Most a Poisson draw returns (the inversion's cap). */
const POISSON_CAP = 1000;

const FIXED = 0;
const TABLE = 1;
const CHOICE = 2;
const EMPTY = new Float64Array(0);

/** Buckets of a guide table (a few per choice keeps the search after the bucket lookup at zero steps mostly). */
const GUIDE = 256;

/** 2^-32: scaling by it is exact, the same value as dividing by 2^32. */
const TWO_POW_MINUS_32 = 2.3283064365386963e-10;

/** Uniforms made per refill. */
const BLOCK = 1024;

/** Knots of the log-normal inverse-CDF table (quantiles off by < 0.1 % between the 1st and 99th percentile). */
const QUANTILES = 8192;
/** Standard normal quantiles at the knots i / QUANTILES (clamped off 0 and 1), made once per process: every log-normal shares them. */
let normalKnots: Float64Array | null = null;

// Acklam's rational approximation of the normal quantile. Module constants: a table or closure made per call costs
// more than the arithmetic (a log-normal sampler calls it 8,193 times), and under tsx each closure is also named.
const QA = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
const QB = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const QC = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const QE = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

/**
 * Seeded PRNG (sfc32): fast, 32-bit state words, the same sequence on every platform for a given seed. Uniforms are
 * made in blocks (the state in locals, a tight loop) and handed out one by one: the same sequence, without loading
 * and storing the state for every draw in the simulation's hot loop.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private readonly block = new Float64Array(BLOCK);
  private pos = BLOCK;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed | 0;
    // Warm-up: the first 15 outputs are discarded.
    this.refill();
    this.pos = 15;
  }

  /** Uniform in [0, 1). */
  next(): number {
    if (this.pos === BLOCK) this.refill();
    return this.block[this.pos++]!;
  }

  private refill(): void {
    // Read through | 0: the words are 32-bit, mostly outside V8's small-integer range, so a plain field read is typed
    // as any number and the whole loop runs in double arithmetic, converting back after every add (6x slower).
    let a = this.a | 0;
    let b = this.b | 0;
    let c = this.c | 0;
    let d = this.d | 0;
    const out = this.block;
    for (let i = 0; i < BLOCK; i++) {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      out[i] = (t >>> 0) * TWO_POW_MINUS_32;
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    this.pos = 0;
  }

  private spare = NaN;

  /** Standard normal (Box-Muller, both values of a pair used). */
  normal(): number {
    if (this.spare === this.spare) {
      const v = this.spare;
      this.spare = NaN;
      return v;
    }
    const r = Math.sqrt(-2 * Math.log(1 - this.next()));
    const a = 2 * Math.PI * this.next();
    this.spare = r * Math.sin(a);
    return r * Math.cos(a);
  }

  /** Poisson count: inversion for small means (exp(-mean) may be passed in when reused), normal approximation above 50. */
  poisson(mean: number, expNegMean = Math.exp(-mean)): number {
    if (mean <= 0) return 0;
    if (mean > 50) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    let k = 0;
    let p = expNegMean;
    let s = p;
    const u = this.next();
    while (u > s && k < POISSON_CAP) {
      k++;
      p *= mean / k;
      s += p;
    }
    return k;
  }
}

/**
 * Poisson counts for a mean that stays put over many draws (one hour of steps): the cumulative sums of the inversion
 * in Rng.poisson are made once per mean, so a draw is a search instead of a chain of divisions. Same sums, same
 * comparisons: the same count for the same uniform as Rng.poisson.
 */
export class PoissonDraws {
  private cdf = new Float64Array(64);
  /** Cumulative sums made for the current mean; after the last one the sum no longer changes. */
  private n = 0;
  // NaN, not 0: the field holds fractional means, and a field first seen holding a small integer changes its
  // representation on the first fractional one, which throws away the simulation's compiled code.
  private mean = NaN;

  setMean(mean: number): void {
    this.mean = mean;
    if (mean <= 0 || mean > 50) return;
    let p = Math.exp(-mean);
    let s = p;
    let k = 0;
    this.cdf[0] = s;
    this.n = 1;
    // Past the mode the terms only shrink: once the sum stops changing it never changes again.
    while (k < POISSON_CAP) {
      k++;
      p *= mean / k;
      const next = s + p;
      if (k > mean && next === s) break;
      s = next;
      if (k >= this.cdf.length) {
        const grown = new Float64Array(this.cdf.length * 2);
        grown.set(this.cdf);
        this.cdf = grown;
      }
      this.cdf[k] = s;
      this.n = k + 1;
    }
  }

  draw(rng: Rng): number {
    const mean = this.mean;
    if (mean <= 0 || mean > 50) return rng.poisson(mean);
    const u = rng.next();
    const cdf = this.cdf;
    const last = this.n - 1;
    let k = 0;
    while (u > cdf[k]!) {
      // Beyond the last distinct sum the inversion runs on to its cap.
      if (k === last) return POISSON_CAP;
      k++;
    }
    return k;
  }
}

/**
 * A distribution ready to draw from, as flat tables behind one class (one shape at every call site, so the
 * simulation's per-job draws inline): a fixed value; a table read by linear interpolation at one uniform draw
 * (uniform = two knots, log-normal = inverse-CDF knots); or weighted choice over values by a cumulative table.
 */
export class Sampler {
  private constructor(
    private readonly kind: typeof FIXED | typeof TABLE | typeof CHOICE,
    private readonly xs: Float64Array,
    private readonly cum: Float64Array,
    /** Largest value a draw can give (sizes the simulation's event rings). */
    readonly max: number,
    mean: number | null,
  ) {
    this.mean = mean ?? empiricalMean(this);
    this.guide = guideTable(cum);
  }

  private readonly guide: Int32Array;

  /** Mean of the distribution (clipped log-normal: by a fixed-seed draw, only to seed the load search's bracket). */
  readonly mean: number;

  static of(d: Distribution): Sampler {
    switch (d.dist) {
      case 'fixed':
        return new Sampler(FIXED, Float64Array.of(d.value), EMPTY, d.value, d.value);
      case 'uniform':
        return new Sampler(TABLE, Float64Array.of(d.min, d.max), EMPTY, d.max, (d.min + d.max) / 2);
      case 'lognormal': {
        // Inverse-CDF table: one uniform draw and a linear interpolation per job instead of Box-Muller and exp.
        const table = lognormalKnots(d.median, d.sigma, d.min ?? 0, d.max ?? Infinity);
        return new Sampler(TABLE, table, EMPTY, table[QUANTILES]!, null);
      }
      case 'choice': {
        const w = d.weights ?? d.values.map(() => 1);
        const total = w.reduce((a, b) => a + b, 0);
        const cum = Float64Array.from(w.map((_, i) => w.slice(0, i + 1).reduce((a, b) => a + b, 0) / total));
        return new Sampler(CHOICE, Float64Array.from(d.values), cum, Math.max(...d.values), d.values.reduce((a, v, i) => a + (v * w[i]!) / total, 0));
      }
    }
  }

  /** The values a discrete distribution (fixed or choice) takes and their probabilities; null for a continuous one. */
  outcomes(): { values: Float64Array; probs: Float64Array } | null {
    if (this.kind === FIXED) return { values: this.xs, probs: Float64Array.of(1) };
    if (this.kind === TABLE) return null;
    const cum = this.cum;
    return { values: this.xs, probs: cum.map((c, i) => c - (i > 0 ? cum[i - 1]! : 0)) };
  }

  /**
   * The exact distribution of max(1, round(X x f)) (f > 0, X a draw), as whole-number outcomes and their
   * probabilities: the simulation's duration in steps. Null when it would take more than `maxOutcomes` values.
   * A table spreads each segment's share of the uniform evenly over the values between its two knots.
   */
  roundedOutcomes(f: number, maxOutcomes: number): { values: Int32Array; probs: Float64Array } | null {
    const whole = (x: number) => Math.max(1, Math.floor(x * f + 0.5));
    if (whole(this.max) > maxOutcomes) return null;
    const mass = new Float64Array(whole(this.max) + 1);
    const xs = this.xs;
    if (this.kind === TABLE) {
      const seg = 1 / (xs.length - 1);
      for (let i = 0; i + 1 < xs.length; i++) {
        const a = xs[i]! * f;
        const b = xs[i + 1]! * f;
        if (!(b > a)) {
          mass[whole(xs[i]!)]! += seg;
          continue;
        }
        // Values d take the part of [a, b) that rounds to them, [d - 0.5, d + 0.5).
        for (let d = Math.floor(a + 0.5); d <= Math.floor(b + 0.5); d++) {
          const part = Math.min(b, d + 0.5) - Math.max(a, d - 0.5);
          if (part > 0) mass[Math.max(1, d)]! += (seg * part) / (b - a);
        }
      }
    } else {
      const o = this.outcomes()!;
      o.values.forEach((v, k) => (mass[whole(v)]! += o.probs[k]!));
    }
    const values: number[] = [];
    const probs: number[] = [];
    mass.forEach((p, d) => {
      if (p > 0) {
        values.push(d);
        probs.push(p);
      }
    });
    return { values: Int32Array.from(values), probs: Float64Array.from(probs) };
  }

  /** The same distribution with every value multiplied by `f` (f > 0), so a unit change is folded into the table. */
  scaled(f: number): Sampler {
    return new Sampler(this.kind, this.xs.map((x) => x * f), this.cum, this.max * f, this.mean * f);
  }

  draw(r: Rng): number {
    const xs = this.xs;
    if (this.kind === FIXED) return xs[0]!;
    if (this.kind === TABLE) {
      const x = r.next() * (xs.length - 1);
      const i = x | 0;
      return xs[i]! + (x - i) * (xs[i + 1]! - xs[i]!);
    }
    return xs[choose(r, this.cum, this.guide)]!;
  }
}

export const sampler = (d: Distribution): Sampler => Sampler.of(d);

/**
 * Guide table (Chen and Asau) for a cumulative table: guide[q] is the first index whose cumulative weight exceeds
 * q / GUIDE, so the search for a uniform u starts at guide[floor(u x GUIDE)] and rarely moves (few mispredicted
 * branches per draw); the index found is the one a linear search from 0 finds.
 */
export function guideTable(cum: Float64Array): Int32Array {
  const g = new Int32Array(cum.length ? GUIDE : 0);
  const last = cum.length - 1;
  for (let q = 0, i = 0; q < g.length; q++) {
    while (i < last && q / GUIDE >= cum[i]!) i++;
    g[q] = i;
  }
  return g;
}

/**
 * Walker's alias table (Vose's construction) for weights: a draw takes one uniform u, its bucket i = floor(u x n)
 * and, when the fraction of u x n past i is at least prob[i], the bucket's alias: O(1) for any number of outcomes.
 */
export interface AliasTable {
  prob: Float64Array;
  alias: Int32Array;
}

export function aliasTable(weights: ArrayLike<number>): AliasTable {
  const n = weights.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += weights[i]!;
  const prob = new Float64Array(n);
  const alias = new Int32Array(n);
  const scaled = Float64Array.from({ length: n }, (_, i) => (weights[i]! * n) / total);
  const small: number[] = [];
  const large: number[] = [];
  for (let i = n - 1; i >= 0; i--) (scaled[i]! < 1 ? small : large).push(i);
  while (small.length && large.length) {
    const s = small.pop()!;
    const l = large.pop()!;
    prob[s] = scaled[s]!;
    alias[s] = l;
    scaled[l] = scaled[l]! + scaled[s]! - 1;
    (scaled[l]! < 1 ? small : large).push(l);
  }
  // What is left has weight 1 up to rounding: it keeps its own bucket.
  for (const i of [...small, ...large]) {
    prob[i] = 1;
    alias[i] = i;
  }
  return { prob, alias };
}

/** The outcome an alias table gives for the next uniform. */
export function drawAlias(rng: Rng, t: AliasTable): number {
  const prob = t.prob;
  const x = rng.next() * prob.length;
  const i = x | 0;
  return x - i < prob[i]! ? i : t.alias[i]!;
}

/**
 * For the next uniform u, the first index whose cumulative weight exceeds u (the last one at most), by the guide
 * table. Takes the generator rather than u: a call the compiler does not inline then passes no boxed number.
 */
export function choose(rng: Rng, cum: Float64Array, guide: Int32Array): number {
  const u = rng.next();
  const last = cum.length - 1;
  let i = guide[(u * GUIDE) | 0]!;
  while (i < last && u >= cum[i]!) i++;
  return i;
}

// A loop of its own, not inside Sampler.of: a setup loop that grows hot makes V8 compile the whole function around it
// (tens of ms of compiler time in a process's first simulation, for code that runs a few times).
function lognormalKnots(median: number, sigma: number, lo: number, hi: number): Float64Array {
  const z = (normalKnots ??= standardKnots());
  const table = new Float64Array(QUANTILES + 1);
  for (let i = 0; i <= QUANTILES; i++) table[i] = Math.min(hi, Math.max(lo, median * Math.exp(sigma * z[i]!)));
  return table;
}

function standardKnots(): Float64Array {
  const z = new Float64Array(QUANTILES + 1);
  for (let i = 0; i <= QUANTILES; i++) z[i] = normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, i / QUANTILES)));
  return z;
}

/** Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p < 0.02425) return quantileTail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -quantileTail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  const a = QA;
  const b = QB;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

function quantileTail(q: number): number {
  const c = QC;
  const e = QE;
  return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((e[0]! * q + e[1]!) * q + e[2]!) * q + e[3]!) * q + 1);
}

function empiricalMean(d: Sampler): number {
  const r = new Rng(12345);
  let s = 0;
  for (let i = 0; i < 4000; i++) s += d.draw(r);
  return s / 4000;
}
