/** What a selector's detail reads of an optimum (analysis.ts's Optimum; it imports this file, so not named here). */
interface OptimumFacts {
  cap_w: number | null;
  reference_cap_w: number | null;
  scores: readonly { cap_w: number; slowdown?: number | null }[];
}

/** "images" -> "image": the singular of a work unit, for "J per image". */
export function singular(units: string): string {
  return units.endsWith('s') ? units.slice(0, -1) : units;
}

export interface SelectorInfo {
  /** A heading for its best cap (the Results page, reports), with the options it depends on. */
  title(o: { slowdown_budget: number; weight: number }): string;
  /** What it minimises or maximises, for `--selector` help. */
  help: string;
  /** Its score `v` (already formatted) in the workload's units. */
  score(v: string, units: string): string;
  /** More about an optimum, after its score on the Results page. */
  detail?(o: OptimumFacts): string;
}

/**
 * The optimum selectors, one line each, in display order. Each is scored by its rule in
 * `src/core/analysis/optimum.ts` (`RULES`, typed to require one per selector).
 */
export const selectorList = [
  { id: 'max-efficiency', title: () => 'Most work per joule', help: 'most units/J', score: (v, u) => `${v} ${u}/J` },
  {
    id: 'min-energy-slowdown',
    title: (o) => `Least energy, ≤ ${Math.round(o.slowdown_budget * 100)} % slower`,
    help: 'least J/unit within --slowdown',
    score: (v, u) => `${v} J per ${singular(u)}`,
    detail: (o) => {
      const slow = o.scores.find((s) => s.cap_w === o.cap_w)?.slowdown;
      return slow != null ? ` · ${(slow * 100).toFixed(1)} % slower than ${o.reference_cap_w ?? '?'} W` : '';
    },
  },
  { id: 'min-edp', title: () => 'Lowest energy × delay', help: 'least energy-delay product', score: (v, u) => `${v} J·s per ${singular(u)}²` },
  {
    id: 'weighted',
    title: (o) => `Weighted: ${Math.round(o.weight * 100)} % time, ${Math.round((1 - o.weight) * 100)} % energy`,
    help: '--weight between time and energy',
    score: (v) => `cost ${v}`,
    detail: () => ' (1 = fastest and leanest)',
  },
] as const satisfies readonly ({ id: string } & SelectorInfo)[];

export type SelectorId = (typeof selectorList)[number]['id'];
export const selectorIds = selectorList.map((s) => s.id) as [SelectorId, ...SelectorId[]];

export function selectorInfo(id: SelectorId): SelectorInfo {
  return selectorList.find((s) => s.id === id)!;
}
