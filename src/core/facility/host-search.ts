import { maxOf } from '../../shared/facility';
import { buildModel, type ScenarioInput } from './model';
import { FacilityInputError } from './profile';
import { findLoad, runReplica } from './run';

/** One node count tried by the interconnection search. */
export interface HostTry {
  nodes: number;
  load: number;
  work_lost_share: number;
  hours_at_limit: number;
  hours_over_limit: number;
  grid_peak_w: number;
}

export interface HostSearchResult {
  limit_w: number;
  target_utilization: number;
  max_work_lost_share: number;
  /** The largest node count whose year at the target keeps the work lost under the share (null: not even the smallest). */
  nodes: number | null;
  best: HostTry | null;
  tries: HostTry[];
  elapsed_s: number;
}

/**
 * The oversubscription question: the largest site (node count) that a grid connection of `grid.limit_mw` can host at
 * a target utilisation while the caps and pauses that keep it under the limit lose at most `maxLossShare` of the
 * work, and the grid draw never stays over it. Work lost grows with the node count (more busy nodes under the same
 * limit), so the count is bracketed by doubling from the config's and then found by false position to `tolerance`
 * (a share of it).
 * Each try is a load search at that size and one year with the grid response (replica 1's seed).
 */
export function searchHost(sc: ScenarioInput, target: number, maxLossShare: number, tolerance = 0.01): HostSearchResult {
  const t0 = performance.now();
  const c = sc.config;
  if (c.mode !== 'training') throw new FacilityInputError('mode', 'the interconnection search is for training sites');
  if (!c.grid || c.grid.limit_mw === undefined) throw new FacilityInputError('grid.limit_mw', 'the interconnection search needs grid.limit_mw');
  const minNodes = Math.max(1, ...c.jobs.map((j) => maxOf(j.nodes)));
  const tries: HostTry[] = [];
  const tryNodes = (nodes: number): HostTry => {
    const s: ScenarioInput = { ...sc, config: { ...c, nodes, replicas: 1 } };
    const b = buildModel(s);
    const { load } = findLoad(b, target, c.seed);
    const g = runReplica(s, b, load, c.seed).grid!;
    const t = { nodes, load, work_lost_share: g.work_lost_share, hours_at_limit: g.hours_at_limit, hours_over_limit: g.hours_over_limit, grid_peak_w: g.grid_peak_w };
    tries.push(t);
    return t;
  };
  const fits = (t: HostTry) => t.work_lost_share <= maxLossShare && t.hours_over_limit === 0;
  let lo: HostTry | null = null;
  let hi: HostTry | null = null;
  let n = Math.max(minNodes, c.nodes);
  // Bracket: double while it fits, halve while it does not.
  for (let k = 0; k < 20; k++) {
    const t = tryNodes(n);
    if (fits(t)) {
      lo = t;
      if (hi !== null) break;
      n *= 2;
    } else {
      hi = t;
      if (lo !== null || n === minNodes) break;
      n = Math.max(minNodes, Math.floor(n / 2));
    }
  }
  // Then false position on the work lost (near-linear in the node count above the limit), halving when one side
  // stays (the Illinois step), kept strictly inside the bracket.
  let side = 0;
  while (lo !== null && hi !== null && hi.nodes - lo.nodes > Math.max(1, Math.round(tolerance * lo.nodes))) {
    let fLo = lo.work_lost_share - maxLossShare;
    let fHi = hi.hours_over_limit > 0 ? Math.max(hi.work_lost_share - maxLossShare, 1e-9) : hi.work_lost_share - maxLossShare;
    if (side === -1) fHi /= 2;
    if (side === 1) fLo /= 2;
    let mid = fHi > fLo ? Math.round(lo.nodes + ((0 - fLo) * (hi.nodes - lo.nodes)) / (fHi - fLo)) : Math.floor((lo.nodes + hi.nodes) / 2);
    mid = Math.min(hi.nodes - 1, Math.max(lo.nodes + 1, mid));
    const t = tryNodes(mid);
    if (fits(t)) {
      lo = t;
      side = -1;
    } else {
      hi = t;
      side = 1;
    }
  }
  return {
    limit_w: c.grid.limit_mw * 1e6,
    target_utilization: target,
    max_work_lost_share: maxLossShare,
    nodes: lo?.nodes ?? null,
    best: lo,
    tries,
    elapsed_s: (performance.now() - t0) / 1000,
  };
}
