// "Did you mean …?" for a mistyped name (a workload id, a command): the closest known names by edit distance.

/** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known names close enough to `name` to be what was meant (case ignored): at most a third of its length in
 * edits (at least 1, at most 3), nearest first; none when nothing is that close.
 */
export function closestNames(name: string, known: Iterable<string>, most = 3): string[] {
  const wanted = name.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  return [...new Set(known)]
    .map((k) => ({ k, d: editDistance(wanted, k.toLowerCase()) }))
    .filter((x) => x.d <= limit)
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .slice(0, most)
    .map((x) => x.k);
}

/** ` (did you mean "a" or "b"?)`, or '' when nothing known is close. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const near = closestNames(name, known);
  if (!near.length) return '';
  const quoted = near.map((n) => `"${n}"`);
  return ` (did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`}?)`;
}
