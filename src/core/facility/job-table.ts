import type { StepProfile } from './profile';
import { aliasTable, type AliasTable, type Sampler } from './rng';

/** One job type, resolved for a time step: samplers, the step profile, and the stretch a fleet cap imposes. */
export interface ResolvedJobType {
  name: string;
  share: number;
  nodes: Sampler;
  durationH: Sampler;
  profile: StepProfile;
  /** Duration multiplier (1 / relative throughput at the fleet cap). */
  stretch: number;
}

/**
 * A job's type, node count and duration in steps as one weighted choice over (type, node count, duration) triples,
 * drawn by an alias table: one uniform and one O(1) lookup per job for all three. Types whose node count is
 * continuous get nodes -1, and types whose durations take too many whole steps get duration -1: drawn after.
 */
export interface JobTable extends AliasTable {
  type: Int32Array;
  /** Node count, rounded and clamped to the pool; -1 where the type's sampler must be drawn. */
  nodes: Int32Array;
  /** Duration in steps, rounded, at least 1; -1 where the type's sampler must be drawn. */
  dur: Int32Array;
}

/** Most triples one type may add to the table (beyond, its durations are drawn per job instead). */
const MAX_TYPE_ENTRIES = 1 << 14;

/** Node count as the simulation takes a draw: nearest whole number, at least 1, at most the pool. */
export const wholeNodes = (x: number, pool: number): number => Math.max(1, Math.min(pool, Math.floor(x + 0.5)));

/** Duration in steps as the simulation takes a draw already scaled to steps: nearest whole number, at least 1. */
export const wholeSteps = (x: number): number => Math.max(1, Math.floor(x + 0.5));

/** Hours to steps for a type: its fleet-cap stretch folded in. */
export const durationScale = (t: ResolvedJobType, stepS: number): number => (3600 * t.stretch) / stepS;

export function jobTable(types: readonly ResolvedJobType[], pool: number, stepS: number): JobTable {
  const total = types.reduce((a, t) => a + t.share, 0);
  const w: number[] = [];
  const type: number[] = [];
  const nodes: number[] = [];
  const dur: number[] = [];
  types.forEach((t, i) => {
    if (!(t.share > 0)) return;
    const o = t.nodes.outcomes();
    const nodeEntries = o ? Array.from(o.values, (v, k) => [wholeNodes(v, pool), o.probs[k]!] as const) : [[-1, 1] as const];
    const d = t.durationH.roundedOutcomes(durationScale(t, stepS), Math.floor(MAX_TYPE_ENTRIES / nodeEntries.length));
    const durEntries = d ? Array.from(d.values, (v, k) => [v, d.probs[k]!] as const) : [[-1, 1] as const];
    for (const [n, pn] of nodeEntries)
      for (const [s, ps] of durEntries) {
        // Zero weights are left out: no bucket can then give an impossible triple.
        if (!(pn > 0 && ps > 0)) continue;
        w.push((t.share / total) * pn * ps);
        type.push(i);
        nodes.push(n);
        dur.push(s);
      }
  });
  return { ...aliasTable(w), type: Int32Array.from(type), nodes: Int32Array.from(nodes), dur: Int32Array.from(dur) };
}
