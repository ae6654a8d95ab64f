// The profile search of `caplab tune`: a coarse grid, then golden-section refinement near the best cap, each cap
// visited at least twice in a random order (drift and warming do not masquerade as a cap effect), then more visits
// of the caps the equivalence rule cannot yet tell from the best, until the selector's answer is settled at the
// margin or the profiling budget is spent. Pure: the caller measures visits and reports them.
import { proposeCaps, snapCap } from '../analysis/refine';
import { selectOptimum, type OptimumPoint } from '../analysis/optimum';
import { marginWords, verdictParts } from '../analysis/equivalence';
import type { DeviceLimits, Optimum, Selector } from '../../shared/analysis';
import type { HoldReason } from '../../shared/tune';
import { seededRng, shuffled, twoRounds, type Rng } from './random';

/** A measured visit of one cap. `seconds` is the whole visit (settling included): what it cost the job. */
export interface TuneVisit {
  cap_w: number;
  /** Counted window (backend time). */
  start: number;
  end: number;
  /** Time the visit took from its cap change to its end. */
  seconds: number;
  /** Units/s per GPU in the counted window. */
  throughput: number;
  /** Units per joule of node energy (GPUs + overhead) in the counted window. */
  efficiency: number;
  /** Mean power per GPU in the counted window, W. */
  power_w: number;
  /** Passed the steady-state test; unsteady visits are kept on record but not used. */
  steady: boolean;
  /** Relative standard error of the window's time per unit from its steps (measureVisit); absent or null without steps. */
  rate_rse?: number | null;
  /** Its degrees of freedom. */
  rate_df?: number;
}

export interface SearchConfig {
  caps: readonly number[];
  limits: DeviceLimits;
  default_w: number;
  selector: Selector;
  /** Practical margin (fraction), as in the analysis. */
  margin: number;
  alpha: number;
  /** Profiling seconds allowed (max-profile-share x expected job time). */
  budget_s: number;
  seed: number;
  /** Refinement stops when the best cap's bracket is this narrow, W. Default: a quarter of the coarse step. */
  refine_width_w?: number;
  /** No cap gets more visits than this. */
  max_visits_per_cap?: number;
  slowdown_budget?: number;
}

export interface Hold {
  cap_w: number;
  reason: HoldReason;
  note: string;
  optimum: Optimum;
}

export type SearchStep = { kind: 'visit'; cap_w: number; stage: 'coarse' | 'refine' | 'settle' } | { kind: 'hold'; hold: Hold };

export class CapSearch {
  readonly visits: TuneVisit[] = [];
  private queue: number[];
  private stage: 'coarse' | 'refine' | 'settle' = 'coarse';
  private held: Hold | null = null;
  private readonly rng: Rng;
  private readonly maxVisits: number;
  private readonly width: number;

  constructor(private readonly cfg: SearchConfig) {
    if (cfg.caps.length < 2) throw new Error('a tuning search needs at least two caps');
    this.rng = seededRng(cfg.seed);
    this.queue = twoRounds(cfg.caps, this.rng);
    this.maxVisits = cfg.max_visits_per_cap ?? 6;
    const sorted = [...cfg.caps].sort((a, b) => a - b);
    const step = Math.min(...sorted.slice(1).map((c, i) => c - sorted[i]!));
    this.width = cfg.refine_width_w ?? Math.max(cfg.limits.granularity_w, step / 4);
  }

  /** Profiling time spent so far (every visit, settling included). */
  get spentS(): number {
    return this.visits.reduce((a, v) => a + v.seconds, 0);
  }

  /** The profiling budget, backend seconds. */
  get budgetS(): number {
    return this.cfg.budget_s;
  }

  /** Whether a visit under way for `visitS` has reached the budget (the session cuts it there). */
  reachedBudget(visitS: number): boolean {
    return this.spentS + visitS >= this.cfg.budget_s;
  }

  record(v: TuneVisit): void {
    this.visits.push(v);
  }

  /** The selector's answer on the visits so far (unsteady visits left out). */
  optimum(): Optimum {
    return selectOptimum(pointsOf(this.visits), this.cfg.selector, {
      margin: this.cfg.margin,
      alpha: this.cfg.alpha,
      default_limit_w: this.cfg.default_w,
      slowdown_budget: this.cfg.slowdown_budget,
    });
  }

  /** What to do next: visit a cap, or hold one (final until `restart`). */
  next(): SearchStep {
    if (this.held) return { kind: 'hold', hold: this.held };
    for (;;) {
      const cap = this.queue[0];
      if (cap !== undefined) {
        if (this.spentS + this.visitEstimate(cap) > this.cfg.budget_s) return this.hold('budget');
        this.queue.shift();
        return { kind: 'visit', cap_w: cap, stage: this.stage };
      }
      if (!this.plan()) return { kind: 'hold', hold: this.held! };
    }
  }

  /** Starts over (a phase change): the visits so far describe a job that is no more. */
  restart(seed: number): void {
    this.visits.length = 0;
    this.held = null;
    this.stage = 'coarse';
    this.queue = twoRounds(this.cfg.caps, seededRng(seed));
  }

  /** Length a visit to a cap may take: the longest of its visits, else of all visits, else nothing known yet (the budget is a bound, so the longest). */
  private visitEstimate(cap: number): number {
    const own = this.visits.filter((v) => v.cap_w === cap);
    const from = own.length ? own : this.visits;
    return from.length ? Math.max(...from.map((v) => v.seconds)) : 0;
  }

  /** Fills the queue for the next stage; false once the answer is final (held). */
  private plan(): boolean {
    const opt = this.optimum();
    if (this.stage !== 'settle') {
      const proposal = proposeCaps({
        points: this.scores(opt),
        limits: this.cfg.limits,
        width_w: this.width,
        max_runs: Number.MAX_SAFE_INTEGER,
        runs_used: 0,
        repetitions: 2,
        batch: 2,
      });
      let fresh = proposal.next_caps.map((c) => snapCap(c, this.cfg.limits)).filter((c) => !this.visits.some((v) => v.cap_w === c));
      // A refinement round is worth starting only if each new cap can have its two visits within the budget: with
      // room for one cap, the probe on the side of the best cap's better neighbour (where a hill's top more likely is).
      const est = this.visitEstimate(opt.cap_w ?? fresh[0] ?? 0);
      const room = est > 0 ? Math.floor((this.cfg.budget_s - this.spentS) / (2 * est)) : fresh.length;
      if (room < fresh.length && opt.cap_w !== null) {
        const scored = this.scores(opt).filter((p) => p.score !== null).sort((a, b) => a.cap_w - b.cap_w);
        const at = scored.findIndex((p) => p.cap_w === opt.cap_w);
        const left = scored[at - 1]?.score ?? -Infinity;
        const right = scored[at + 1]?.score ?? -Infinity;
        fresh.sort((a, b) => (left >= right ? a - b : b - a));
      }
      fresh = fresh.slice(0, Math.max(0, room));
      if (!proposal.done && fresh.length) {
        this.stage = 'refine';
        this.queue = twoRounds(fresh, this.rng);
        return true;
      }
      this.stage = 'settle';
    }
    if (opt.cap_w === null) {
      this.hold('visits', opt);
      return false;
    }
    // Settled: no cap may be better than the best by more than the margin (the upper end of each equivalence
    // interval at most +margin), so holding the best costs at most the margin against any cap. A cap that is
    // worse by about the margin stays "undetermined" in the analysis for ever, and needs no more visits here.
    const eq = opt.equivalence;
    const open = eq
      ? eq.caps.filter((c) => c.verdict !== 'best' && (c.ci === null || c.ci[1] > eq.margin)).map((c) => c.cap_w)
      : [...new Set(this.visits.map((v) => v.cap_w))].filter((c) => c !== opt.cap_w);
    if (eq && open.length === 0) {
      this.hold('settled', opt);
      return false;
    }
    const count = (c: number) => this.visits.filter((v) => v.cap_w === c).length;
    const openMore = open.filter((c) => count(c) < this.maxVisits);
    if (openMore.length === 0) {
      this.hold('visits', opt);
      return false;
    }
    const more = count(opt.cap_w) < this.maxVisits ? [opt.cap_w, ...openMore] : openMore;
    this.queue = shuffled(more, this.rng);
    return true;
  }

  /** Each measured cap's mean score, higher is better (selectors that minimise are negated), for the refinement. */
  private scores(opt: Optimum): { cap_w: number; score: number | null }[] {
    const sign = opt.direction === 'max' ? 1 : -1;
    const caps = [...new Set(this.visits.map((v) => v.cap_w))];
    return caps.map((cap_w) => {
      const s = opt.scores.find((x) => x.cap_w === cap_w);
      return { cap_w, score: s && s.feasible && s.value !== null ? sign * s.value : null };
    });
  }

  private hold(reason: HoldReason, opt = this.optimum()): SearchStep {
    const cap = opt.cap_w ?? this.cfg.default_w;
    const note =
      reason === 'settled'
        ? `settled: no cap is better than ${cap} W by more than ${((opt.equivalence?.margin ?? this.cfg.margin) * 100).toFixed(1)} %; ${settledStatement(opt)}`
        : reason === 'budget'
          ? `profiling budget spent (${this.spentS.toFixed(0)} of ${this.cfg.budget_s.toFixed(0)} s): holding the best cap so far, ${cap} W, not settled at the margin${opt.equivalence?.undetermined_caps.length ? ` (not told apart from it yet: ${opt.equivalence.undetermined_caps.join(', ')} W)` : ''}`
          : opt.cap_w === null
            ? `no usable visits: holding the default limit ${cap} W (${opt.note ?? ''})`
            : `every candidate cap has had ${this.maxVisits} visits: holding the best, ${cap} W, not settled at the margin`;
    this.held = { cap_w: cap, reason, note, optimum: opt };
    return { kind: 'hold', hold: this.held };
  }
}

/** Visits grouped per cap as the optimum selectors take them. */
export function pointsOf(visits: readonly TuneVisit[]): OptimumPoint[] {
  const caps = [...new Set(visits.map((v) => v.cap_w))].sort((a, b) => a - b);
  return caps.map((cap_w) => {
    const runs = visits.filter((v) => v.cap_w === cap_w && v.steady).map((v) => ({ throughput: v.throughput, efficiency: v.efficiency }));
    return { cap_w, eligible: runs.length > 0, excluded_reason: runs.length ? null : 'no steady visit', runs };
  });
}

/**
 * What a settled hold says of the other caps. The analysis calls a cap "undetermined" while its interval reaches past
 * -margin, but the settle rule asks only that none reaches past +margin: such a cap is at most the margin better and
 * perhaps worse by more, and no visit would change the hold, so it is not "not enough repetitions to tell" here.
 */
function settledStatement(opt: Optimum): string {
  const eq = opt.equivalence;
  if (!eq || opt.cap_w === null) return '';
  const parts = verdictParts(opt.cap_w, eq);
  if (eq.undetermined_caps.length) parts.push(`at most ${marginWords(eq.margin)} better and perhaps worse by more (more visits would not change the hold): ${eq.undetermined_caps.join(', ')} W`);
  return parts.join('; ');
}
