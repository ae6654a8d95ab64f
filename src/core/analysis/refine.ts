// Adaptive refinement of the cap grid around the optimum (plan option caps: {adaptive: {...}}).
import type { DeviceLimits, RefineProposal } from '../../shared/analysis';

/** Golden-section ratio 2 - phi = 0.381966...: the probe sits this far into the larger sub-interval. */
export const GOLDEN = (3 - Math.sqrt(5)) / 2;

export interface RefineInput {
  /** Measured caps with a score where higher is better (e.g. mean efficiency); null scores are ignored. */
  points: readonly { cap_w: number; score: number | null }[];
  limits: DeviceLimits;
  /** Stop when the bracket around the best cap is at most this wide, W. */
  width_w: number;
  /** Runs the refinement may add in all. */
  max_runs: number;
  /** Runs the refinement has added so far. */
  runs_used: number;
  /** Runs each new cap costs (the plan's repetitions). */
  repetitions: number;
  /** New caps per round: 1 = classic golden section (larger side), 2 = both sides. Default 2. */
  batch?: number;
}

/** Nearest multiple of the device's granularity inside [min, max]. */
export function snapCap(w: number, limits: DeviceLimits): number {
  const g = limits.granularity_w > 0 ? limits.granularity_w : 1;
  const snapped = Math.round(w / g) * g;
  const lo = Math.ceil(limits.min_w / g - 1e-9) * g;
  const hi = Math.floor(limits.max_w / g + 1e-9) * g;
  return Math.round(Math.min(hi, Math.max(lo, snapped)) * 1e6) / 1e6;
}

/**
 * Proposes the next caps. With the best measured cap b and its measured neighbours a < b < c (the optimum of a
 * unimodal curve lies in [a, c]), each side wider than the target gets a golden-section probe
 * b -/+ 0.382 (b - a | c - b), larger side first. A best cap at the edge of the measured grid is bracketed by
 * extending towards the device limit. Stops when c - a <= width_w ('converged'), when the run budget cannot pay
 * for one more cap ('budget'), or when the device granularity allows no new cap ('granularity').
 */
export function proposeCaps(input: RefineInput): RefineProposal {
  const { limits, width_w } = input;
  const runsLeft = Math.max(0, input.max_runs - input.runs_used);
  const pts = input.points
    .filter((p) => p.score !== null && Number.isFinite(p.score) && Number.isFinite(p.cap_w))
    .map((p) => ({ cap_w: p.cap_w, score: p.score as number }))
    .sort((a, b) => a.cap_w - b.cap_w);
  const base = { target_width_w: width_w, runs_left: runsLeft };
  if (pts.length === 0)
    return { ...base, best_cap_w: null, bracket: null, width_w: null, done: true, reason: 'no-data', next_caps: [], note: 'no measured caps with a score' };
  let bi = 0;
  for (let i = 1; i < pts.length; i++) if (pts[i]!.score > pts[bi]!.score) bi = i;
  const b = pts[bi]!.cap_w;
  const left = bi > 0 ? pts[bi - 1]!.cap_w : null;
  const right = bi < pts.length - 1 ? pts[bi + 1]!.cap_w : null;
  const atMin = b <= limits.min_w + 1e-9;
  const atMax = b >= limits.max_w - 1e-9;
  // Bracket: the measured neighbours; at a device limit the limit itself closes the bracket.
  const a = left ?? (atMin ? b : null);
  const c = right ?? (atMax ? b : null);
  const bracket: [number, number] | null = a !== null && c !== null ? [a, c] : null;
  const width = bracket ? bracket[1] - bracket[0] : null;
  const measured = new Set(pts.map((p) => p.cap_w));

  if (width !== null && width <= width_w + 1e-9)
    return { ...base, best_cap_w: b, bracket, width_w: width, done: true, reason: 'converged', next_caps: [], note: `best cap ${b} W known to within ${width} W` };

  // Candidates, most useful first.
  const cands: { w: number; size: number }[] = [];
  if (a === null) {
    // Best at the low edge of the grid, device allows lower: extend by the distance to the right neighbour.
    const span = right !== null ? right - b : Math.max(width_w, 2 * limits.granularity_w);
    cands.push({ w: Math.max(limits.min_w, b - span), size: Infinity });
  } else if (b - a > width_w / 2) cands.push({ w: b - GOLDEN * (b - a), size: b - a });
  if (c === null) {
    const span = left !== null ? b - left : Math.max(width_w, 2 * limits.granularity_w);
    cands.push({ w: Math.min(limits.max_w, b + span), size: Infinity });
  } else if (c - b > width_w / 2) cands.push({ w: b + GOLDEN * (c - b), size: c - b });
  cands.sort((x, y) => y.size - x.size);

  const batch = input.batch ?? 2;
  const affordable = input.repetitions > 0 ? Math.floor(runsLeft / input.repetitions) : 0;
  const next: number[] = [];
  for (const cand of cands) {
    const s = snapCap(cand.w, limits);
    if (measured.has(s) || next.includes(s)) continue;
    next.push(s);
  }
  if (next.length === 0)
    return { ...base, best_cap_w: b, bracket, width_w: width, done: true, reason: 'granularity', next_caps: [], note: `no new cap at ${limits.granularity_w} W granularity narrows the optimum further` };
  if (affordable === 0)
    return { ...base, best_cap_w: b, bracket, width_w: width, done: true, reason: 'budget', next_caps: [], note: `run budget spent (${input.runs_used} of ${input.max_runs} runs)` };
  const chosen = next.slice(0, Math.min(batch, affordable)).sort((x, y) => x - y);
  return {
    ...base,
    best_cap_w: b,
    bracket,
    width_w: width,
    done: false,
    reason: 'continue',
    next_caps: chosen,
    note: bracket ? `optimum inside ${bracket[0]}..${bracket[1]} W; probing ${chosen.join(', ')} W` : `best cap at the edge of the grid; extending to ${chosen.join(', ')} W`,
  };
}
