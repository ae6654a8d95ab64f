// How the results page words and groups the engine's analysis (analyzeSweep). Pure: no React, no DOM; unit-tested.
import { Selector, type AnalysisFlag, type AnalysisGroup, type CapPoint, type Optimum } from './analysis';
import { selectorInfo, singular } from './selectors';
import { sig } from './format';
import { flagList, type FlagInfo, type FlagSeverity } from './flags';

export type { FlagSeverity };

/** Label, severity and one-line meaning of every analysis flag (the registry, src/shared/flags.ts). */
export const FLAG_INFO = Object.fromEntries(flagList.map((f) => [f.id, f])) as Record<AnalysisFlag, FlagInfo>;

const SEVERITY_ORDER: Record<FlagSeverity, number> = { error: 0, warn: 1, info: 2 };

/** A cap's flags, most severe first. */
export function sortedFlags(flags: readonly AnalysisFlag[]): AnalysisFlag[] {
  return [...flags].sort((a, b) => SEVERITY_ORDER[FLAG_INFO[a].severity] - SEVERITY_ORDER[FLAG_INFO[b].severity]);
}

/** The most severe flag level of a cap, or null when it has none. */
export function capSeverity(cap: Pick<CapPoint, 'flags'>): FlagSeverity | null {
  const f = sortedFlags(cap.flags)[0];
  return f ? FLAG_INFO[f].severity : null;
}

/** Why a flag was raised at this cap, in the analysis' own words where it gives them. */
export function flagDetail(cap: CapPoint, flag: AnalysisFlag): string {
  switch (flag) {
    case 'not-enforced':
    case 'power-above-cap':
    case 'limit-mismatch':
    case 'spikes-above-cap':
      return cap.enforcement.reasons.join('; ') || FLAG_INFO[flag].meaning;
    case 'excluded':
      return cap.excluded_reason ?? FLAG_INFO[flag].meaning;
    case 'high-variance': {
      const cv = [cap.throughput.cv != null ? `throughput CV ${(cap.throughput.cv * 100).toFixed(1)} %` : null, cap.efficiency.cv != null ? `efficiency CV ${(cap.efficiency.cv * 100).toFixed(1)} %` : null].filter(Boolean);
      return `${FLAG_INFO[flag].meaning}${cv.length ? `: ${cv.join(', ')}` : ''}`;
    }
    case 'drift':
      return cap.drift ? `${FLAG_INFO[flag].meaning}: ${cap.drift.relative_change != null ? `${(cap.drift.relative_change * 100).toFixed(1)} %` : sig(cap.drift.change)} over the repetitions` : FLAG_INFO[flag].meaning;
    default:
      return FLAG_INFO[flag].meaning;
  }
}

export const SELECTOR_ORDER: readonly Selector[] = Selector.options;

export function selectorTitle(s: Selector, o: { slowdown_budget: number; weight: number }): string {
  return selectorInfo(s).title(o);
}

export { singular };

/** The optimum's score in the workload's units. */
export function optimumValue(o: Optimum, units: string): string {
  if (o.value == null) return '–';
  const info = selectorInfo(o.selector);
  return `${info.score(sig(o.value), units)}${info.detail?.(o) ?? ''}`;
}

/** The slowdown reference of a group (AnalysisGroup.reference): the one every face measures slowdowns against. */
type Reference = NonNullable<AnalysisGroup['reference']>;

/**
 * How much slower (time per unit) the best cap is than the group's slowdown reference, in the words every face
 * uses: "9.3 % slower than 700 W (default limit, measured)". null without an answer or without a valid reference.
 */
export function slowdownText(o: Optimum, ref: Reference | null | undefined): string | null {
  if (o.cap_w == null || !ref?.valid) return null;
  const slow = o.scores.find((s) => s.cap_w === o.cap_w)?.slowdown;
  if (slow == null) return null;
  const v = `${Math.abs(slow * 100).toFixed(1)} %`;
  return `${slow >= -5e-4 ? `${v} slower` : `${v} faster`} than ${ref.cap_w} W (${ref.basis})`;
}

/** Why a selector has no best cap and what would give one (null when it has an answer). */
export function noAnswerText(o: Optimum): { reason: string; fix: string | null } | null {
  if (o.cap_w != null) return null;
  return { reason: o.no_answer_reason ?? o.note ?? 'no eligible caps', fix: o.fix };
}

/** The uncertainty of a best cap: which caps are within the margin of it, worse, or not yet known (equivalence). */
export function rangeText(o: Optimum): string {
  if (o.cap_w == null) return o.note ?? 'no eligible caps';
  const eq = o.equivalence;
  if (eq == null) return 'uncertainty not testable: fewer than 2 repetitions at the best cap';
  const pct = `${+(eq.margin * 100).toFixed(1)} %`;
  const parts: string[] = [];
  parts.push(eq.equivalent_caps.length ? `within ${pct}: ${eq.equivalent_caps.join(', ')} W` : `no other cap shown within ${pct}`);
  if (eq.undetermined_caps.length) {
    const need = eq.caps.filter((c) => c.verdict === 'undetermined').map((c) => c.repetitions_needed);
    const most = need.length && need.every((n) => n !== null) ? Math.max(...(need as number[])) : null;
    parts.push(`too few repetitions to tell: ${eq.undetermined_caps.join(', ')} W${most !== null ? ` (about ${most} per cap would)` : ''}`);
  }
  if (eq.worse_caps.length) parts.push(`worse by more than ${pct}: ${eq.worse_caps.join(', ')} W`);
  return `${parts.join('; ')} (${eq.correction}, family-wise ${+((1 - eq.alpha) * 100).toFixed(1)} %)`;
}

/**
 * An optimum's note for a results card, without the equivalence statement: the card's range line (rangeText) already
 * says it, so the card says it once.
 */
export function cardNote(o: Optimum): string | null {
  const statement = o.equivalence?.statement;
  if (!o.note || !statement) return o.note;
  const rest = o.note
    .split(statement)
    .map((s) => s.replace(/^;\s*|;\s*$/g, '').trim())
    .filter(Boolean)
    .join('; ');
  return rest || null;
}

/** The same workload in another sweep's analysis (any device: comparing GPUs is the point), else its only group. */
export function matchGroup(groups: readonly AnalysisGroup[], g: Pick<AnalysisGroup, 'workload' | 'device_model'>): AnalysisGroup | null {
  return groups.find((x) => x.workload === g.workload && x.device_model === g.device_model) ?? groups.find((x) => x.workload === g.workload) ?? (groups.length === 1 ? groups[0]! : null);
}

export function groupLabel(g: Pick<AnalysisGroup, 'workload' | 'device_model'>): string {
  return `${g.workload} · ${g.device_model}`;
}

/** The sensitivity table's row for an overhead: the nearest one at or below it. */
export function nearestOverhead(overheads: readonly number[], overhead: number): number | null {
  let best: number | null = null;
  for (const o of overheads) if (o <= overhead && (best == null || o > best)) best = o;
  return best ?? overheads[0] ?? null;
}
