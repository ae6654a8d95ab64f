import { guideTable } from './rng';
import type { ResolvedJobType } from './training';

/**
 * A job's type and node count as one weighted choice over (type, node count) pairs, so a job costs one uniform and
 * one guide-table search for both. Types whose node count is continuous get one entry (nodes -1: drawn after).
 */
export interface JobTable {
  cum: Float64Array;
  guide: Int32Array;
  type: Int32Array;
  /** Node count, rounded and clamped to the pool; -1 where the type's sampler must be drawn. */
  nodes: Int32Array;
}

/** Node count as the simulation takes a draw: nearest whole number, at least 1, at most the pool. */
export const wholeNodes = (x: number, pool: number): number => Math.max(1, Math.min(pool, Math.floor(x + 0.5)));

export function jobTable(types: readonly ResolvedJobType[], pool: number): JobTable {
  const total = types.reduce((a, t) => a + t.share, 0);
  const w: number[] = [];
  const type: number[] = [];
  const nodes: number[] = [];
  types.forEach((t, i) => {
    const o = t.nodes.outcomes();
    const entries = o ? Array.from(o.values, (v, k) => [wholeNodes(v, pool), o.probs[k]!] as const) : [[-1, 1] as const];
    for (const [n, p] of entries) {
      // Zero weights are left out: a rounding shortfall in the last cumulative sum can then pick no impossible pair.
      if (!(p > 0 && t.share > 0)) continue;
      w.push((t.share / total) * p);
      type.push(i);
      nodes.push(n);
    }
  });
  const cum = new Float64Array(w.length);
  let c = 0;
  w.forEach((x, i) => (cum[i] = c += x));
  return { cum, guide: guideTable(cum), type: Int32Array.from(type), nodes: Int32Array.from(nodes) };
}
