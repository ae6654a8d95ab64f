// Which caps a measured equivalence set stands for. A sweep measures a grid of caps; its set names the grid caps not
// shown worse than the best, and a cap between grid points (a tuner's 1 W answer, the true best) counts as inside
// when it is nearer a set member than any measured cap outside the set.

/** The caps a set stands for: each end out to half-way to the next measured cap (to the set's own end at the edge of what was measured). */
export function spanOf(set: readonly number[], measured: readonly number[]): [number, number] | null {
  if (set.length === 0) return null;
  const lo = Math.min(...set);
  const hi = Math.max(...set);
  const below = measured.filter((c) => c < lo);
  const above = measured.filter((c) => c > hi);
  return [below.length ? (lo + Math.max(...below)) / 2 : lo, above.length ? (hi + Math.min(...above)) / 2 : hi];
}

/** Whether a cap lies in the caps a set stands for, ends included (a cap exactly half-way counts for the set). */
export function insideSpan(cap_w: number, span: readonly [number, number] | null): boolean {
  return span !== null && span[0] <= cap_w + 1e-9 && cap_w <= span[1] + 1e-9;
}
