// "Is this cap as good as the best?" as an equivalence question: a confidence interval on each cap's difference to
// the best cap, against a practical margin, with the multiple-comparison correction stated. A failed significance
// test is not evidence of equivalence (two repetitions 28 % apart pass one), and a significant sub-1 % difference is
// not a practical one.
import { finite, mean, sampleSd, tQuantile } from './stats';
import type { CapComparison, Equivalence } from '../../shared/analysis';

type Verdict = CapComparison['verdict'];

/**
 * Compares every other cap with the best (`best` indexes `values`). Each comparison is a two one-sided tests
 * interval (Welch, 1 − 2α/m, Bonferroni over the m comparisons) of the relative difference, the best cap's mean
 * taken as exact in the denominator: inside ±margin is equivalent, beyond −margin is worse, else undetermined.
 */
export function equivalenceToBest(
  caps: readonly number[],
  values: readonly (readonly number[])[],
  best: number,
  direction: 'max' | 'min',
  opts: { margin: number; alpha: number; pool_single?: boolean },
): Equivalence {
  const { margin, alpha } = opts;
  const m = Math.max(1, caps.length - 1);
  const a = alpha / m;
  const level = 1 - 2 * a;
  const b = finite(values[best]!);
  const mb = mean(b);
  const sign = direction === 'max' ? 1 : -1;
  const pooled = opts.pool_single && b.length >= 2 ? pooledSpread(values) : null;
  const singles: number[] = [];
  const out: CapComparison[] = caps.map((cap_w, i) => {
    if (i === best) return { cap_w, verdict: 'best', rel_diff: 0, ci: [0, 0], repetitions_needed: null };
    const x = finite(values[i]!);
    const rel = (sign * (mean(x) - mb)) / Math.abs(mb);
    if (x.length === 1 && pooled) {
      // One run has no spread of its own: it is judged on the run-to-run spread of the caps with repetitions.
      const half = (tQuantile(1 - a, pooled.df) * pooled.sd * Math.sqrt(1 + 1 / b.length)) / Math.abs(mb);
      const ci: [number, number] = [rel - half, rel + half];
      const verdict: Verdict = ci[0] >= -margin && ci[1] <= margin ? 'equivalent' : ci[1] < -margin ? 'worse' : 'undetermined';
      singles.push(cap_w);
      return { cap_w, verdict, rel_diff: rel, ci, repetitions_needed: verdict === 'undetermined' ? needed(Math.abs(rel), pooled.sd / Math.abs(mb), margin, a) : null, spread: 'pooled' };
    }
    if (x.length < 2 || b.length < 2) {
      return { cap_w, verdict: 'undetermined', rel_diff: rel, ci: null, repetitions_needed: needed(Math.abs(rel), null, margin, a) };
    }
    const va = sampleSd(x) ** 2 / x.length;
    const vb = sampleSd(b) ** 2 / b.length;
    const se2 = va + vb;
    const dfDen = (va > 0 ? (va * va) / (x.length - 1) : 0) + (vb > 0 ? (vb * vb) / (b.length - 1) : 0);
    const df = dfDen > 0 ? (se2 * se2) / dfDen : x.length + b.length - 2;
    const half = (tQuantile(1 - a, df) * Math.sqrt(se2)) / Math.abs(mb);
    const ci: [number, number] = [rel - half, rel + half];
    const verdict: Verdict = ci[0] >= -margin && ci[1] <= margin ? 'equivalent' : ci[1] < -margin ? 'worse' : 'undetermined';
    // Per-repetition relative spread, pooled over the two caps, for the sample size that would settle it.
    const sdRel = Math.sqrt((sampleSd(x) ** 2 + sampleSd(b) ** 2) / 2) / Math.abs(mb);
    return { cap_w, verdict, rel_diff: rel, ci, repetitions_needed: verdict === 'undetermined' ? needed(Math.abs(rel), sdRel, margin, a) : null };
  });
  const pick = (v: Verdict) => out.filter((c) => c.verdict === v).map((c) => c.cap_w);
  const equivalent_caps = pick('equivalent');
  const undetermined_caps = pick('undetermined');
  const worse_caps = pick('worse');
  const candidate_caps = out.filter((c) => c.verdict !== 'worse').map((c) => c.cap_w);
  const parts = verdictParts(caps[best]!, { margin, equivalent_caps, worse_caps });
  if (undetermined_caps.length) {
    const need = out.filter((c) => c.verdict === 'undetermined').map((c) => c.repetitions_needed);
    const most = need.every((n) => n !== null) ? Math.max(...(need as number[])) : null;
    parts.push(`not enough repetitions to tell: ${undetermined_caps.join(', ')} W${most !== null ? ` (about ${most} repetitions per cap would)` : ''}`);
  }
  if (singles.length) parts.push(`${singles.join(', ')} W (one run each) judged on the run-to-run spread pooled over ${pooled!.caps} caps with repetitions (${pooled!.df} df)`);
  const correction = m > 1 ? `Bonferroni over ${m} comparisons: each interval at ${(level * 100).toFixed(1)} %` : `one comparison: interval at ${(level * 100).toFixed(1)} %`;
  return {
    margin,
    alpha,
    comparisons_m: m,
    interval_level: level,
    correction,
    equivalent_caps,
    undetermined_caps,
    worse_caps,
    candidate_caps,
    caps: out,
    statement: `${parts.join('; ')} (margin ${marginWords(margin)}, ${correction}, family-wise ${((1 - alpha) * 100).toFixed(0)} %)`,
  };
}

/** A margin in words, as the statement prints it ("2 %", "0.5 %"). */
export const marginWords = (x: number): string => `${(x * 100).toFixed(x < 0.01 ? 1 : 0)} %`;

/** The statement's first parts: the best cap, the caps within the margin of it, those worse by more. */
export function verdictParts(bestCap: number, eq: Pick<Equivalence, 'margin' | 'equivalent_caps' | 'worse_caps'>): string[] {
  const parts = [`best ${bestCap} W`];
  if (eq.equivalent_caps.length) parts.push(`within ${marginWords(eq.margin)} of it: ${eq.equivalent_caps.join(', ')} W`);
  if (eq.worse_caps.length) parts.push(`worse by more than ${marginWords(eq.margin)}: ${eq.worse_caps.join(', ')} W`);
  return parts;
}

/**
 * Run-to-run standard deviation pooled over the caps with at least 2 runs (one-way ANOVA's within-cap spread; it
 * assumes every cap spreads alike, which a cap's own spread cannot be checked against with one run). null with fewer
 * than 2 such caps: the spread of one cap says too little about the others.
 */
function pooledSpread(values: readonly (readonly number[])[]): { sd: number; df: number; caps: number } | null {
  let ss = 0;
  let df = 0;
  let caps = 0;
  for (const v of values) {
    const x = finite(v);
    if (x.length < 2) continue;
    ss += sampleSd(x) ** 2 * (x.length - 1);
    df += x.length - 1;
    caps++;
  }
  return caps >= 2 && df > 0 ? { sd: Math.sqrt(ss / df), df, caps } : null;
}

/**
 * Smallest repetitions per cap (both caps, same spread, Student t with 2n − 2 df) whose interval half-width clears the
 * gap between the observed difference and the margin; the spread is taken as the margin itself where unknown (n < 2).
 * null where the difference sits on the margin or more than 1,000 repetitions would be needed.
 */
function needed(absRel: number, sdRel: number | null, margin: number, a: number): number | null {
  const gap = Math.abs(margin - absRel);
  if (gap < 1e-9) return null;
  const sd = sdRel ?? margin;
  for (let n = 2; n <= 1000; n++) if (tQuantile(1 - a, 2 * n - 2) * sd * Math.sqrt(2 / n) <= gap) return n;
  return null;
}
