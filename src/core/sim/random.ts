// Deterministic noise for the simulated GPU. Values are a pure function of (seed, keys), not of call order,
// so two processes (the backend and a workload) or two reads of the same sensor tick agree exactly.

/** 32-bit integer hash (splitmix-style avalanche) of a seed and integer keys. */
function hash32(seed: number, keys: readonly number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const k of keys) {
    // Fold keys that exceed 32 bits (sensor ticks in epoch deciseconds) into two words.
    const lo = k >>> 0;
    const hi = Math.floor(k / 4294967296) >>> 0;
    for (const word of [lo, hi]) {
      h = Math.imul(h ^ word, 0x85ebca6b) >>> 0;
      h = (h ^ (h >>> 13)) >>> 0;
      h = Math.imul(h, 0xc2b2ae35) >>> 0;
      h = (h ^ (h >>> 16)) >>> 0;
    }
  }
  return h;
}

/** Uniform in [0, 1). */
export function uniform(seed: number, ...keys: number[]): number {
  return hash32(seed, keys) / 4294967296;
}

/** Standard normal (Box-Muller over two independent uniforms). */
export function gaussian(seed: number, ...keys: number[]): number {
  const u1 = Math.max(uniform(seed, ...keys, 1), 1e-12);
  const u2 = uniform(seed, ...keys, 2);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}
