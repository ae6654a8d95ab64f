// Which plan problems a designer field shows (pure: unit-tested without a DOM).
import type { PlanIssue } from '../../shared/api/plans';

/**
 * Messages of the issues at `path` or below it (`caps` matches `caps.from`), joined; undefined when none. Below a
 * workload's `params` the parameter is named (`batch_size: must be …`): one row holds all its parameters.
 */
export function issuesAt(issues: readonly PlanIssue[], ...paths: string[]): string | undefined {
  const hits = issues.flatMap((i) => {
    const p = paths.find((q) => i.path === q || i.path.startsWith(`${q}.`));
    if (p === undefined) return [];
    return [p.endsWith('.params') && i.path !== p ? `${i.path.slice(p.length + 1)}: ${i.message}` : i.message];
  });
  return hits.length ? hits.join('; ') : undefined;
}

/** Same, exactly at `path` or at a list index below it (`caps` matches `caps.0`, not `caps.from`). */
export function issuesExactly(issues: readonly PlanIssue[], path: string): string | undefined {
  const hits = issues.filter((i) => i.path === path || new RegExp(`^${path.replace(/\./g, '\\.')}\\.\\d+$`).test(i.path));
  return hits.length ? hits.map((i) => i.message).join('; ') : undefined;
}
