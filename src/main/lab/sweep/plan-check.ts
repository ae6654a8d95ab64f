import { CapsSpec, PLAN_LIMITS, planCaps, rangeCount, type Plan } from '../../../shared/plan';
import type { DeviceInfo } from '../../../shared/device';
import type { PlanIssue } from '../input/issues';
import { didYouMean } from '../../../shared/suggest';

/** The parts of a plan the device check reads; taken from a plan, or from whatever parses of a malformed one. */
export interface PlanParts {
  devices: number[];
  workloads: string[];
  caps: number[];
  observe_only: boolean;
}

export function partsOf(plan: Plan): PlanParts {
  return { devices: plan.devices, workloads: plan.workloads.map((w) => w.id), caps: planCaps(plan.caps), observe_only: plan.observe_only };
}

/**
 * The checkable parts of a plan that failed its schema, so unknown workloads, missing devices and caps out of range
 * are reported together with the schema's problems, not only after those are fixed.
 */
export function rawParts(value: unknown): PlanParts {
  const o = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const devices = o.devices === undefined ? [0] : Array.isArray(o.devices) ? o.devices.filter((d): d is number => Number.isInteger(d) && d >= 0) : [];
  const workloads = Array.isArray(o.workloads) ? o.workloads.map((w) => (w !== null && typeof w === 'object' ? (w as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === 'string' && id !== '') : [];
  const caps = CapsSpec.safeParse(o.caps);
  // A range of more caps than a plan may run is the schema's problem (it says how many); none is listed here.
  const listable = caps.success && (Array.isArray(caps.data) || rangeCount('adaptive' in caps.data ? caps.data.adaptive : caps.data) <= PLAN_LIMITS.max_runs);
  return { devices, workloads, caps: listable ? planCaps(caps.data) : [], observe_only: o.observe_only === true };
}

const MAX_LISTED = 5;

/** Problems of a plan's devices, workloads and caps against what exists, each at its field. */
export function deviceIssues(parts: PlanParts, devices: readonly DeviceInfo[], workloads: ReadonlySet<string>): { issues: PlanIssue[]; chosen: DeviceInfo[] } {
  const issues: PlanIssue[] = [];
  const chosen: DeviceInfo[] = [];
  const gpus = devices.filter((d) => d.kind === 'gpu');
  parts.devices.forEach((index, i) => {
    const d = gpus.find((g) => g.index === index);
    if (!d) issues.push({ path: `devices.${i}`, message: `no GPU with index ${index} (available: ${gpus.map((g) => g.index).join(', ') || 'none'})` });
    else chosen.push(d);
  });
  parts.workloads.forEach((id, i) => {
    if (!workloads.has(id)) issues.push({ path: `workloads.${i}.id`, message: `unknown workload "${id}"${didYouMean(id, workloads)} (known: ${[...workloads].sort().join(', ')})` });
  });
  if (!parts.observe_only) {
    for (const d of chosen) {
      const { min_limit_w: min, max_limit_w: max } = d;
      if (min === null || max === null) {
        issues.push({ path: 'caps', message: `${d.name} (#${d.index}) reports no limit range, so caps cannot be set; use observe_only` });
        continue;
      }
      // One line per cap, but not ten thousand of them: the first few, then how many more.
      const outside = parts.caps.filter((cap) => cap < min || cap > max);
      for (const cap of outside.slice(0, MAX_LISTED)) issues.push({ path: 'caps', message: `${cap} W is outside the allowed range of ${d.name} (#${d.index}): ${min}-${max} W` });
      if (outside.length > MAX_LISTED) issues.push({ path: 'caps', message: `and ${outside.length - MAX_LISTED} more caps outside the allowed range of ${d.name} (#${d.index}): ${min}-${max} W` });
    }
  }
  const seen = new Set<string>();
  return { issues: issues.filter((i) => !seen.has(i.path + i.message) && seen.add(i.path + i.message)), chosen };
}
