import type { Distribution } from '../../shared/facility';

/** Seeded PRNG (sfc32): fast, 32-bit state words, the same sequence on every platform for a given seed. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed | 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
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
    while (u > s && k < 1000) {
      k++;
      p *= mean / k;
      s += p;
    }
    return k;
  }
}

/** A distribution ready to draw from (choice weights normalised to a cumulative table once). */
export interface Sampler {
  draw(rng: Rng): number;
  mean: number;
}

export function sampler(d: Distribution): Sampler {
  switch (d.dist) {
    case 'fixed':
      return { draw: () => d.value, mean: d.value };
    case 'uniform':
      return { draw: (r) => d.min + (d.max - d.min) * r.next(), mean: (d.min + d.max) / 2 };
    case 'lognormal': {
      // Inverse-CDF table: one uniform draw and a linear interpolation per job instead of Box-Muller and exp.
      const lo = d.min ?? 0;
      const hi = d.max ?? Infinity;
      const table = new Float64Array(QUANTILES + 1);
      for (let i = 0; i <= QUANTILES; i++) {
        const u = Math.min(1 - 1e-12, Math.max(1e-12, i / QUANTILES));
        table[i] = Math.min(hi, Math.max(lo, d.median * Math.exp(d.sigma * normalQuantile(u))));
      }
      const draw = (r: Rng) => {
        const x = r.next() * QUANTILES;
        const i = x | 0;
        return table[i]! + (x - i) * (table[i + 1]! - table[i]!);
      };
      return { draw, mean: empiricalMean(draw) };
    }
    case 'choice': {
      const w = d.weights ?? d.values.map(() => 1);
      const total = w.reduce((a, b) => a + b, 0);
      const cum = Float64Array.from(w.map((_, i) => w.slice(0, i + 1).reduce((a, b) => a + b, 0) / total));
      const draw = (r: Rng) => {
        const u = r.next();
        let i = 0;
        while (i < cum.length - 1 && u >= cum[i]!) i++;
        return d.values[i]!;
      };
      return { draw, mean: d.values.reduce((a, v, i) => a + (v * w[i]!) / total, 0) };
    }
  }
}

/** Knots of the log-normal inverse-CDF table (quantiles off by < 0.1 % between the 1st and 99th percentile). */
const QUANTILES = 8192;

/** Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const e = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((e[0]! * q + e[1]!) * q + e[2]!) * q + e[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** Mean of a clipped distribution by a fixed-seed draw (only to seed the bisection's bracket). */
function empiricalMean(draw: (r: Rng) => number): number {
  const r = new Rng(12345);
  let s = 0;
  for (let i = 0; i < 4000; i++) s += draw(r);
  return s / 4000;
}
