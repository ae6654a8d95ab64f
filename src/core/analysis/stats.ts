// Statistics across repetitions: descriptive stats, Student t quantiles (no dependency), Welch test, trends.
import type { Stat, Trend } from '../../shared/analysis';

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) (Lanczos, g = 7), about 15 significant digits for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction for the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const TINY = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return h;
}

/** Regularised incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** Standard normal quantile (Acklam, refined by one Halley step), used for df = Infinity. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const pl = 0.02425;
  let x: number;
  if (p < pl) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - pl) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  const e = 0.5 * erfc(-x / Math.SQRT2) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

function erfc(x: number): number {
  // Numerical Recipes erfcc (fractional error < 1.2e-7), enough for one Halley refinement step.
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Student t cumulative distribution P(T <= t) with df degrees of freedom (df > 0, may be fractional). */
export function tCdf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`tCdf: df must be > 0, got ${df}`);
  if (Number.isNaN(t)) return NaN;
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  const x = df / (df + t * t);
  const tail = 0.5 * incompleteBeta(x, df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** Student t quantile: the t with P(T <= t) = p. Exact closed forms for df 1 and 2, else inversion of the CDF. */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`tQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`tQuantile: df must be > 0, got ${df}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  if (df === Infinity || df > 1e7) return normalQuantile(p);
  if (df === 1) return Math.tan(Math.PI * (p - 0.5));
  if (df === 2) return (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
  // Upper tail q = 1 - p = 0.5 * I_x(df/2, 1/2) with x = df / (df + t^2): bisection on t (monotone), then done.
  let lo = 0;
  let hi = 2;
  while (tCdf(hi, df) < p) {
    lo = hi;
    hi *= 2;
    if (hi > 1e12) return hi;
  }
  for (let i = 0; i < 200; i++) {
    const mid = 0.5 * (lo + hi);
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
    if (hi - lo <= 1e-14 * hi) break;
  }
  return 0.5 * (lo + hi);
}

export function finite(values: readonly (number | null | undefined)[]): number[] {
  const out: number[] = [];
  for (const v of values) if (typeof v === 'number' && Number.isFinite(v)) out.push(v);
  return out;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Sample standard deviation (n - 1); NaN for n < 2. */
export function sampleSd(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return NaN;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / (n - 1));
}

/** Percentile with linear interpolation between order statistics (type 7), q in [0, 1]. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const h = (s.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return s[lo]! + (h - lo) * (s[hi]! - s[lo]!);
}

export const SINGLE_REPETITION_NOTE = 'single repetition: no standard deviation or confidence interval (needs at least 2)';

/** Mean, sd, CV and the Student t confidence interval of the mean. Non-finite values are ignored. */
export function describe(values: readonly (number | null | undefined)[], level = 0.95): Stat {
  const v = finite(values);
  const n = v.length;
  if (n === 0) return { n: 0, mean: null, sd: null, cv: null, min: null, max: null, ci: null, note: 'no data' };
  const m = mean(v);
  const min = Math.min(...v);
  const max = Math.max(...v);
  if (n === 1) return { n, mean: m, sd: null, cv: null, min, max, ci: null, note: SINGLE_REPETITION_NOTE };
  const sd = sampleSd(v);
  const df = n - 1;
  const t = tQuantile(1 - (1 - level) / 2, df);
  const half = (t * sd) / Math.sqrt(n);
  return {
    n,
    mean: m,
    sd,
    cv: m !== 0 ? sd / Math.abs(m) : null,
    min,
    max,
    ci: { level, lo: m - half, hi: m + half, half_width: half, t, df },
    note: null,
  };
}

export interface WelchResult {
  t: number;
  df: number;
  p: number;
}

/** Welch's two-sample t-test (two-sided). null when either sample has fewer than 2 values. */
export function welchTest(a: readonly number[], b: readonly number[]): WelchResult | null {
  const x = finite(a);
  const y = finite(b);
  if (x.length < 2 || y.length < 2) return null;
  const va = sampleSd(x) ** 2 / x.length;
  const vb = sampleSd(y) ** 2 / y.length;
  const diff = mean(x) - mean(y);
  const se2 = va + vb;
  const scale = Math.max(Math.abs(mean(x)), Math.abs(mean(y)), 1e-300);
  if (se2 <= (1e-15 * scale) ** 2) {
    // No spread at all: the means either coincide or differ with certainty.
    const same = Math.abs(diff) <= 1e-12 * scale;
    return { t: same ? 0 : Math.sign(diff) * Infinity, df: x.length + y.length - 2, p: same ? 1 : 0 };
  }
  const t = diff / Math.sqrt(se2);
  const dfDen = (va > 0 ? va * va / (x.length - 1) : 0) + (vb > 0 ? vb * vb / (y.length - 1) : 0);
  const df = (se2 * se2) / dfDen;
  const p = 2 * (1 - tCdf(Math.abs(t), df));
  return { t, df, p: Math.min(1, Math.max(0, p)) };
}

export interface LinearFit {
  n: number;
  slope: number;
  intercept: number;
  /** Two-sided p-value of slope != 0 (df n - 2); null when n < 3. */
  p: number | null;
}

/** Least-squares line y = intercept + slope x. null when fewer than 2 points or x does not vary. */
export function linearFit(x: readonly number[], y: readonly number[]): LinearFit | null {
  const n = Math.min(x.length, y.length);
  if (n < 2) return null;
  const mx = mean(x.slice(0, n));
  const my = mean(y.slice(0, n));
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i]! - mx) ** 2;
    sxy += (x[i]! - mx) * (y[i]! - my);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  if (n < 3) return { n, slope, intercept, p: null };
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (y[i]! - intercept - slope * x[i]!) ** 2;
  const s2 = sse / (n - 2);
  const se = Math.sqrt(s2 / sxx);
  let p: number;
  if (se === 0 || se < 1e-14 * Math.abs(slope)) p = slope === 0 ? 1 : 0;
  else p = 2 * (1 - tCdf(Math.abs(slope / se), n - 2));
  return { n, slope, intercept, p };
}

/**
 * Trend of y over x (e.g. throughput or temperature across repetitions). Flagged when significant at alpha and
 * the change over the span is material: |change| > minRelative * |mean y| and |change| > minAbsolute.
 */
export function trend(x: readonly number[], y: readonly number[], opts: { alpha?: number; minRelative?: number; minAbsolute?: number } = {}): Trend | null {
  const pts: [number, number][] = [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (Number.isFinite(x[i]) && Number.isFinite(y[i])) pts.push([x[i]!, y[i]!]);
  if (pts.length < 3) return null;
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const fit = linearFit(xs, ys);
  if (!fit) return null;
  const span = Math.max(...xs) - Math.min(...xs);
  const change = fit.slope * span;
  const my = mean(ys);
  const relative = my !== 0 ? change / Math.abs(my) : null;
  const alpha = opts.alpha ?? 0.05;
  const material = (relative === null || Math.abs(relative) > (opts.minRelative ?? 0)) && Math.abs(change) > (opts.minAbsolute ?? 0);
  return { n: pts.length, slope: fit.slope, p_value: fit.p, change, relative_change: relative, flagged: fit.p !== null && fit.p < alpha && material };
}
