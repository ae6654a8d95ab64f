// Sequential repetitions (plan `adaptive.repetitions`): after the first pass, repeat only the caps whose place in
// the selector's equivalence set is still undecided, until every place is decided or the budget is spent.
import { selectOptimum, type OptimumPoint } from '../analysis/optimum';
import type { AnalysisGroup, RunAnalysis, Selector } from '../../shared/analysis';
import { seededRandom } from '../schedule';

export interface RepetitionInput {
  points: readonly OptimumPoint[];
  selector: Selector;
  margin: number;
  /** Family-wise error rate, 1 - confidence. */
  alpha: number;
  max_per_cap: number;
  /** Runs the budget still allows (runs and GPU time, whichever is less). */
  runs_left: number;
  /**
   * Judge caps measured once on the run-to-run spread pooled over the caps with repetitions (equivalence.ts), so
   * that only caps it leaves undecided are repeated; the first batch is then the best cap and its neighbours.
   */
  pool_single?: boolean;
  /**
   * Runs made at each cap, flagged or failed ones included (runsMadeOfGroup); max_per_cap bounds these, and a new
   * run's repetition number follows them. Without it, the counted runs of `points`.
   */
  made?: ReadonlyMap<number, number>;
}

export interface RepetitionRun {
  cap_w: number;
  /** The repetition this run will be at its cap (1-based). */
  repetition: number;
  /** Why: "repetition 3, deciding whether it is within 2 % of 400 W". */
  reason: string;
}

export interface RepetitionProposal {
  done: boolean;
  /** decided: no cap undecided; budget: runs spent; max-per-cap: every undecided cap is at max_per_cap; no-data. */
  why: 'decided' | 'budget' | 'max-per-cap' | 'no-data' | 'continue';
  best_cap_w: number | null;
  undecided_caps: number[];
  runs: RepetitionRun[];
  note: string;
}

const pct = (x: number) => `${+(x * 100).toFixed(1)} %`;

/**
 * The feasible caps next to the best, one on each side where there is one: repeated first, their spread and the
 * best's decide how far the caps measured once may be from the best to be judged already.
 */
function neighbours(scores: readonly { cap_w: number; feasible: boolean }[], best: number): number[] {
  const caps = scores.filter((s) => s.feasible && s.cap_w !== best).map((s) => s.cap_w);
  const below = caps.filter((c) => c < best);
  const above = caps.filter((c) => c > best);
  return [...(below.length ? [Math.max(...below)] : []), ...(above.length ? [Math.min(...above)] : [])];
}

/**
 * The next batch: one more repetition at every undecided cap (the selector's 'undetermined' caps; while the best cap
 * has a single repetition nothing is decided, so every eligible cap, or with pool_single its neighbours), and at the
 * best cap when it has no more repetitions than they do (its spread enters every comparison). Caps already at
 * max_per_cap, or that by their spread would need more than max_per_cap, are left; the batch is cut to the budget,
 * the least decided (widest interval) caps first.
 */
export function proposeRepetitions(input: RepetitionInput): RepetitionProposal {
  const o = selectOptimum(input.points, input.selector, { margin: input.margin, alpha: input.alpha, pool_single: input.pool_single ?? false });
  const count = new Map(input.points.map((p) => [p.cap_w, p.runs.length]));
  const made = (cap: number) => Math.max(input.made?.get(cap) ?? 0, count.get(cap) ?? 0);
  const none = { best_cap_w: o.cap_w, undecided_caps: [] as number[], runs: [] as RepetitionRun[] };
  if (o.cap_w === null) return { ...none, done: true, why: 'no-data', note: o.note ?? 'no eligible caps' };
  const best = o.cap_w;
  const within = `within ${pct(input.margin)} of ${best} W`;
  let undecided: { cap_w: number; width: number; needed?: number | null }[];
  if (o.equivalence === null && input.pool_single) undecided = neighbours(o.scores, best).map((cap_w) => ({ cap_w, width: Infinity }));
  else if (o.equivalence === null) undecided = o.scores.filter((s) => s.cap_w !== best && s.feasible).map((s) => ({ cap_w: s.cap_w, width: Infinity }));
  else
    undecided = o.equivalence.caps
      .filter((c) => c.verdict === 'undetermined')
      .map((c) => ({ cap_w: c.cap_w, width: c.ci ? c.ci[1] - c.ci[0] : Infinity, needed: c.ci ? c.repetitions_needed : null }));
  const undecided_caps = undecided.map((u) => u.cap_w).sort((a, b) => a - b);
  if (undecided.length === 0 && o.equivalence !== null) return { ...none, done: true, why: 'decided', note: o.equivalence.statement };
  // Futile: by its interval's spread the cap would need more repetitions than max_per_cap allows (or no number
  // would do, a difference on the margin); one more run would not decide it, so none is spent on it.
  const futile = undecided.filter((u) => u.needed !== undefined && u.width < Infinity && (u.needed === null || u.needed > input.max_per_cap));
  const open = undecided.filter((u) => made(u.cap_w) < input.max_per_cap && !futile.includes(u)).sort((a, b) => b.width - a.width);
  const bestN = count.get(best) ?? 0;
  const runs: RepetitionRun[] = [];
  const maxOpen = Math.max(0, ...open.map((u) => count.get(u.cap_w) ?? 0));
  if (made(best) < input.max_per_cap && (open.length > 0 || o.equivalence === null) && bestN <= maxOpen) {
    const n = made(best) + 1;
    runs.push({ cap_w: best, repetition: n, reason: `repetition ${n} of the best cap so far, ${best} W, so the others can be judged against it` });
  }
  for (const u of open) {
    const n = made(u.cap_w) + 1;
    runs.push({ cap_w: u.cap_w, repetition: n, reason: `repetition ${n}, deciding whether it is ${within}` });
  }
  if (runs.length === 0) {
    const most = futile.length ? ` (${futile.map((u) => `${u.cap_w} W ${u.needed === null ? 'on the margin' : `would need about ${u.needed}`}`).join(', ')})` : '';
    return { ...none, undecided_caps, done: true, why: 'max-per-cap', note: `caps ${undecided_caps.join(', ')} W stay undecided within ${input.max_per_cap} repetitions each${most}` };
  }
  if (input.runs_left <= 0) return { ...none, undecided_caps, done: true, why: 'budget', note: `the budget is spent with ${undecided_caps.join(', ')} W undecided` };
  return {
    best_cap_w: best,
    undecided_caps,
    runs: runs.slice(0, input.runs_left),
    done: false,
    why: 'continue',
    note: `undecided: ${undecided_caps.join(', ')} W (${within}?)`,
  };
}

/** The selector's input for one analysis group: each cap's counted runs (usable, not flagged out). */
export function pointsOfGroup(group: Pick<AnalysisGroup, 'caps'>, runs: readonly RunAnalysis[]): OptimumPoint[] {
  const byId = new Map(runs.map((r) => [r.run_id, r]));
  return group.caps.map((c) => {
    const out = new Set(c.excluded_runs.map((x) => x.run_id));
    const counted = c.run_ids.flatMap((id) => {
      const r = byId.get(id);
      return r && r.usable && !out.has(id) && r.throughput !== null && r.efficiency !== null ? [{ throughput: r.throughput, efficiency: r.efficiency }] : [];
    });
    return { cap_w: c.cap_w, eligible: c.eligible, excluded_reason: c.excluded_reason, runs: counted };
  });
}

/** Runs made at each cap of one analysis group, whether they count or not: what max_per_cap bounds. */
export function runsMadeOfGroup(group: Pick<AnalysisGroup, 'caps'>): Map<number, number> {
  return new Map(group.caps.map((c) => [c.cap_w, c.run_ids.length]));
}

/**
 * A batch of added runs in the order they run: shuffled with the plan's seed and the batch's round for
 * `order: randomized` (so drifts do not line up with the caps, as in the first pass), as proposed otherwise.
 */
export function orderBatch<T>(runs: readonly T[], order: 'sequential' | 'randomized', seed: number, round: number): T[] {
  const out = [...runs];
  if (order !== 'randomized') return out;
  const rand = seededRandom(seed + 7919 * round);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
