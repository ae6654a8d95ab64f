import { createContext } from 'react';
import type { PlanIssue } from '../../../shared/api';

/** The plan check's problems, for the fields to show their own. */
export const PlanIssuesContext = createContext<readonly PlanIssue[]>([]);

/** Messages of the issues at `path` or below it (`caps` matches `caps.from`), joined; undefined when none. */
export function issuesAt(issues: readonly PlanIssue[], ...paths: string[]): string | undefined {
  const hits = issues.filter((i) => paths.some((p) => i.path === p || i.path.startsWith(`${p}.`)));
  return hits.length ? hits.map((i) => i.message).join('; ') : undefined;
}

/** Same, exactly at `path` or at a list index below it (`caps` matches `caps.0`, not `caps.from`). */
export function issuesExactly(issues: readonly PlanIssue[], path: string): string | undefined {
  const hits = issues.filter((i) => i.path === path || new RegExp(`^${path.replace(/\./g, '\\.')}\\.\\d+$`).test(i.path));
  return hits.length ? hits.map((i) => i.message).join('; ') : undefined;
}
