import { BackendChoice } from '../../../shared/device';
import type { Plan } from '../../../shared/plan';
import { openLabBackend, type LabBackend } from '../gpu/lab-backend';
import { schemaIssues } from './plan-file';
import { deviceIssues, partsOf, rawParts } from './plan-check';
import { issuesOfLines, shapeIssue, type PlanIssue } from './plan-issues';
import { checkWorkloadParams, knownWorkloads } from './workload-command';

export interface PlanVerdict {
  plan: Plan | null;
  issues: PlanIssue[];
  /** Backend seconds per wall second of the backend the plan would use (the estimate's time scale). */
  timeScale: number;
}

/**
 * Every problem of a plan at once, each at its field: the schema's, and (from whatever parts parse) unknown
 * workloads and parameters, missing devices, caps outside a device's range, and a backend that cannot be opened.
 * Reads devices only: no database is opened and no limit is touched.
 */
export async function checkPlan(value: unknown, opts: { backend?: BackendChoice; env: NodeJS.ProcessEnv }): Promise<PlanVerdict> {
  const schema = schemaIssues(value);
  // A plan holding itself or nested without end: nothing else is read from it (every other check would recurse).
  if (shapeIssue(value)) return { plan: null, issues: schema.issues, timeScale: 1 };
  const named = BackendChoice.safeParse((value as { backend?: unknown } | null)?.backend ?? 'auto');
  let lab: LabBackend;
  try {
    lab = await openLabBackend(opts.backend ?? (named.success ? named.data : 'auto'), { env: opts.env, plan: schema.plan ?? undefined });
  } catch (e) {
    return { plan: schema.plan, issues: [...schema.issues, { path: 'backend', message: `cannot be opened: ${(e as Error).message}` }], timeScale: 1 };
  }
  try {
    const parts = schema.plan ? partsOf(schema.plan) : rawParts(value);
    const devices = deviceIssues(parts, await lab.backend.listDevices(), knownWorkloads(lab.backend, opts.env));
    const params = schema.plan ? issuesOfLines(checkWorkloadParams(schema.plan, lab.backend, opts.env)) : [];
    return { plan: schema.plan, issues: [...schema.issues, ...params, ...devices.issues], timeScale: lab.timeScale };
  } finally {
    await lab.backend.close();
  }
}
