// The best cap under a selector, with every other cap judged against it: equivalent within a margin, worse, or
// not enough repetitions to tell (equivalence.ts).
import type { Optimum, OptimumScore, Selector } from '../../shared/analysis';
import { equivalenceToBest } from './equivalence';
import { mean, welchTest } from './stats';

/** One repetition at a cap: throughput (units/s per GPU) and efficiency (units per joule of node energy). */
export interface OptimumRun {
  throughput: number;
  efficiency: number;
}

export interface OptimumPoint {
  cap_w: number;
  /** Eligible for the optimum (usable and enforced). */
  eligible: boolean;
  excluded_reason?: string | null;
  runs: readonly OptimumRun[];
}

export interface OptimumOptions {
  /** min-energy-slowdown: allowed increase of time per unit vs the highest eligible cap. Default 0.10. */
  slowdown_budget?: number;
  /** weighted: weight of time (0..1), energy gets 1 - weight. Default 0.5. */
  weight?: number;
  /** Family-wise error rate of the equivalence statements. Default 0.05. */
  alpha?: number;
  /** Practical margin, a fraction of the best score. Default 0.02. */
  margin?: number;
  /**
   * min-energy-slowdown's reference: the device's default power limit, W. Its throughput is measured where it is a
   * cap of the sweep, else interpolated or extrapolated; without it the highest cap measured is the reference.
   */
  default_limit_w?: number | null;
  /** Judge single-run caps on the run-to-run spread pooled over the caps with repetitions (equivalence.ts). */
  pool_single?: boolean;
  /** Valid caps a best cap needs: below it there is no answer, only why and what to do. Default 2 (MIN_VALID_CAPS). */
  min_valid_caps?: number;
  /** What would give an answer when there is none (the analysis derives it from the flags and the runs' ramp). */
  no_answer_fix?: string | null;
}

/** A best cap is a comparison: one valid cap gives no answer. */
export const MIN_VALID_CAPS = 2;

/** What a rule's score of one run may use: the eligible caps' best time and energy per unit, the weight. */
interface RuleContext {
  refTime: number;
  refEnergy: number;
  weight: number;
}

/** Each selector's rule (one per selector of src/shared/selectors.ts): its metric, direction and per-run score. */
const RULES: Record<Selector, { metric: string; direction: 'max' | 'min'; perRun(r: OptimumRun, c: RuleContext): number }> = {
  'max-efficiency': { metric: 'units/J', direction: 'max', perRun: (r) => r.efficiency },
  'min-energy-slowdown': { metric: 'J/unit', direction: 'min', perRun: (r) => 1 / r.efficiency },
  'min-edp': { metric: 'J*s/unit^2 (energy-delay product per unit)', direction: 'min', perRun: (r) => 1 / r.efficiency / r.throughput },
  weighted: {
    metric: 'normalised cost w*time/min_time + (1-w)*energy/min_energy',
    direction: 'min',
    perRun: (r, c) => (c.weight * (1 / r.throughput)) / c.refTime + ((1 - c.weight) * (1 / r.efficiency)) / c.refEnergy,
  },
};

const usableRun = (r: OptimumRun) => Number.isFinite(r.throughput) && r.throughput > 0 && Number.isFinite(r.efficiency) && r.efficiency > 0;

/**
 * Selects the best cap. Selectors:
 * - max-efficiency: highest mean units per joule.
 * - min-energy-slowdown: lowest mean energy per unit among caps whose time per unit (1 / mean throughput) is at
 *   most (1 + budget) times that of the highest eligible cap (the reference, "uncapped").
 * - min-edp: lowest mean energy-delay product per unit, (J/unit) * (s/unit).
 * - weighted: lowest mean of w * (s/unit) / min_caps(s/unit) + (1 - w) * (J/unit) / min_caps(J/unit).
 * Ties go to the lower cap. Every selector is invariant to the scale of the work unit.
 */
export function selectOptimum(points: readonly OptimumPoint[], selector: Selector, opts: OptimumOptions = {}): Optimum {
  const rule = RULES[selector];
  const { metric, direction } = rule;
  const alpha = opts.alpha ?? 0.05;
  const budget = opts.slowdown_budget ?? 0.1;
  const w = opts.weight ?? 0.5;
  const sorted = [...points].sort((a, b) => a.cap_w - b.cap_w);
  const excluded_caps: { cap_w: number; reason: string }[] = [];
  const eligible: { cap_w: number; runs: OptimumRun[] }[] = [];
  for (const p of sorted) {
    const runs = p.runs.filter(usableRun);
    if (!p.eligible) excluded_caps.push({ cap_w: p.cap_w, reason: p.excluded_reason ?? 'excluded' });
    else if (runs.length === 0) excluded_caps.push({ cap_w: p.cap_w, reason: 'no usable runs' });
    else eligible.push({ cap_w: p.cap_w, runs });
  }
  const minValid = opts.min_valid_caps ?? MIN_VALID_CAPS;
  const total = sorted.length;
  const basis = `${eligible.length} of ${total} cap${total === 1 ? '' : 's'} valid`;
  const fix = opts.no_answer_fix ?? (total < minValid ? `measure at least ${minValid} caps` : null);
  const base: Optimum = {
    selector,
    cap_w: null,
    value: null,
    metric,
    direction,
    indistinguishable_caps: null,
    untested_caps: [],
    range_w: null,
    at_edge: null,
    excluded_caps,
    reference_cap_w: null,
    scores: [],
    note: null,
    equivalence: null,
    reference_basis: null,
    basis,
    valid_caps: eligible.map((p) => p.cap_w),
    cap_count: total,
    no_answer_reason: null,
    fix: null,
  };
  const noAnswer = (reason: string, extra: Partial<Optimum> = {}): Optimum => ({ ...base, ...extra, no_answer_reason: reason, fix, note: `no answer: ${reason}${fix ? `; ${fix}` : ''}` });
  if (eligible.length === 0) return noAnswer(total ? `no eligible caps (0 of ${total} valid: none usable and enforced)` : 'no eligible caps (no caps measured)');
  if (eligible.length < minValid) {
    const which = `${eligible.map((p) => p.cap_w).join(', ')} W`;
    return noAnswer(total >= minValid ? `only ${basis} (${which}): a best cap needs at least ${minValid}` : `only ${total} cap measured (${which}): a best cap needs at least ${minValid}`);
  }

  const meanT = eligible.map((p) => mean(p.runs.map((r) => r.throughput)));
  const reference = slowdownReference(sorted, opts.default_limit_w ?? null);
  if (!reference.valid && selector === 'min-energy-slowdown') return noAnswer(reference.reason!, { reference_cap_w: reference.cap_w, reference_basis: reference.basis });
  const refT = reference.throughput;
  const slowdown = meanT.map((t) => (refT === null ? null : refT / t - 1));
  const refTime = Math.min(...eligible.map((p) => mean(p.runs.map((r) => 1 / r.throughput))));
  const refEnergy = Math.min(...eligible.map((p) => mean(p.runs.map((r) => 1 / r.efficiency))));
  const values = eligible.map((p) => p.runs.map((r) => rule.perRun(r, { refTime, refEnergy, weight: w })));
  const means = values.map((v) => mean(v));
  const feasible = eligible.map((_, i) => selector !== 'min-energy-slowdown' || slowdown[i]! <= budget + 1e-12);

  let best = -1;
  for (let i = 0; i < eligible.length; i++) {
    if (!feasible[i]) continue;
    if (best < 0) best = i;
    else {
      const better = direction === 'max' ? means[i]! > means[best]! : means[i]! < means[best]!;
      if (better) best = i;
    }
  }
  if (best < 0) {
    const reason = `no cap is within the ${(budget * 100).toFixed(0)} % slowdown budget of ${reference.cap_w} W (${reference.basis})`;
    return { ...base, reference_cap_w: reference.cap_w, reference_basis: reference.basis, no_answer_reason: reason, fix: `measure a run at ${reference.cap_w} W`, note: `${reason}; measure a run at ${reference.cap_w} W` };
  }
  const bestVals = values[best]!;
  const notes: string[] = [];
  let indist: number[] | null;
  const untested: number[] = [];
  const scores: OptimumScore[] = eligible.map((p, i) => {
    let pv: number | null = null;
    if (i === best) pv = 1;
    else if (feasible[i]) {
      const r = welchTest(bestVals, values[i]!);
      pv = r ? r.p : null;
    }
    return { cap_w: p.cap_w, value: means[i]!, n: values[i]!.length, p_value: pv, slowdown: slowdown[i] ?? null, feasible: feasible[i]! };
  });
  let equivalence: Optimum['equivalence'] = null;
  if (bestVals.length < 2) {
    indist = null;
    notes.push('single repetition at the best cap: no cap can be judged equivalent to it or worse');
  } else {
    const idx = eligible.map((_, i) => i).filter((i) => feasible[i]);
    equivalence = equivalenceToBest(
      idx.map((i) => eligible[i]!.cap_w),
      idx.map((i) => values[i]!),
      idx.indexOf(best),
      direction,
      { margin: opts.margin ?? 0.02, alpha, pool_single: opts.pool_single ?? false },
    );
    indist = equivalence.candidate_caps;
    for (const c of equivalence.caps) if (c.ci === null && c.verdict !== 'best') untested.push(c.cap_w);
    notes.push(equivalence.statement);
    if (untested.length) notes.push(`caps ${untested.join(', ')} W have fewer than 2 repetitions: not enough to tell`);
  }
  const capW = eligible[best]!.cap_w;
  let at_edge: Optimum['at_edge'] = null;
  if (eligible.length === 1) {
    at_edge = 'single';
    notes.push('only one eligible cap');
  } else if (best === 0) {
    at_edge = 'low';
    notes.push(`best cap is the lowest cap measured (${capW} W): the optimum may lie below; extend the grid`);
  } else if (best === eligible.length - 1) {
    at_edge = 'high';
    notes.push(`best cap is the highest cap measured (${capW} W): the optimum may lie above`);
  }
  if (selector === 'min-energy-slowdown') notes.push(`slowdown budget ${(budget * 100).toFixed(0)} % in time per unit vs ${reference.cap_w} W (${reference.basis})`);
  return {
    ...base,
    cap_w: capW,
    value: means[best]!,
    indistinguishable_caps: indist,
    untested_caps: untested,
    range_w: indist && indist.length ? [Math.min(...indist), Math.max(...indist)] : null,
    at_edge,
    reference_cap_w: selector === 'min-energy-slowdown' ? reference.cap_w : null,
    reference_basis: selector === 'min-energy-slowdown' ? reference.basis : null,
    scores,
    note: notes.length ? notes.join('; ') : null,
    equivalence,
  };
}

/** The slowdown reference ("uncapped"): one definition for every selector, the cards, the report and the JSON. */
export interface SlowdownReference {
  cap_w: number;
  /** Mean throughput there (measured, interpolated or extrapolated); null when not valid. */
  throughput: number | null;
  basis: string;
  /** The reference is usable: measured at a valid cap, or from at least two valid caps around or below it. */
  valid: boolean;
  reason: string | null;
}

/**
 * Throughput at the reference cap: the device's default limit where known, else the highest cap of the sweep. Where
 * that cap was measured it must be valid (a flagged or unenforced reference gives no slowdown, not one against a
 * lower cap). A default limit off the grid is interpolated between the neighbouring valid caps, or extrapolated from
 * the two highest valid caps' slope (for a curve that flattens with power that overstates the reference, so
 * slowdowns are overstated rather than hidden). The answer then no longer depends on how far up the grid reaches.
 */
export function slowdownReference(points: readonly OptimumPoint[], defaultLimit: number | null): SlowdownReference {
  const sorted = [...points].sort((a, b) => a.cap_w - b.cap_w);
  const valid = sorted.filter((p) => p.eligible && p.runs.some(usableRun));
  const caps = valid.map((p) => p.cap_w);
  const throughput = valid.map((p) => mean(p.runs.filter(usableRun).map((r) => r.throughput)));
  const refCap = defaultLimit ?? sorted[sorted.length - 1]?.cap_w ?? null;
  if (refCap === null) return { cap_w: 0, throughput: null, basis: 'no caps', valid: false, reason: 'no caps measured' };
  const basisAt = defaultLimit === null ? 'highest cap measured; the default limit is unknown' : 'default limit, measured';
  const onGrid = sorted.find((p) => p.cap_w === refCap);
  if (onGrid) {
    const at = caps.indexOf(refCap);
    if (at >= 0) return { cap_w: refCap, throughput: throughput[at]!, basis: basisAt, valid: true, reason: null };
    const why = onGrid.eligible ? 'no usable runs' : (onGrid.excluded_reason ?? 'excluded');
    return { cap_w: refCap, throughput: null, basis: basisAt, valid: false, reason: `the reference cap ${refCap} W (${basisAt}) is not valid: ${why}` };
  }
  const n = caps.length;
  if (n < 2) return { cap_w: refCap, throughput: null, basis: 'default limit, not measured', valid: false, reason: `the default limit ${refCap} W was not measured and ${n} valid cap${n === 1 ? ' is' : 's are'} too few to extrapolate it` };
  const top = { cap_w: caps[n - 1]!, throughput: throughput[n - 1]! };
  const hi = caps.findIndex((c) => c > refCap);
  const [i, j] = hi <= 0 ? (hi === 0 ? [0, 1] : [n - 2, n - 1]) : [hi - 1, hi];
  const slope = (throughput[j]! - throughput[i]!) / (caps[j]! - caps[i]!);
  const t = throughput[i]! + slope * (refCap - caps[i]!);
  const inside = hi > 0;
  const value = inside ? t : refCap > top.cap_w ? Math.max(t, top.throughput) : t;
  return {
    cap_w: refCap,
    throughput: value,
    basis: inside ? `default limit, interpolated between ${caps[i]} and ${caps[j]} W` : `default limit, extrapolated linearly from ${caps[i]} and ${caps[j]} W`,
    valid: true,
    reason: null,
  };
}
