// A small seeded generator (mulberry32): the visit order must be random against drift, yet replayable from the seed.
export type Rng = () => number;

export function seededRng(seed: number): Rng {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Fisher-Yates shuffle into a new array. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Two rounds of the caps, each in its own random order, the second never starting with the cap the first ended on
 * (a cap visited twice in a row would be one long visit, not two).
 */
export function twoRounds(caps: readonly number[], rng: Rng): number[] {
  const a = shuffled(caps, rng);
  const b = shuffled(caps, rng);
  if (b.length > 1 && b[0] === a[a.length - 1]) [b[0], b[1]] = [b[1]!, b[0]!];
  return [...a, ...b];
}
