import { planCaps, type Plan } from '../../../shared/plan';
import type { DeviceInfo } from '../../../shared/device';
import { PlanError } from './plan-file';

const MAX_LISTED = 5;

/**
 * Checks a plan against the devices and workloads that exist, before anything runs or is written.
 * Returns the plan's devices. Every problem is listed, each naming the field it concerns.
 */
export function validatePlanAgainstDevices(plan: Plan, devices: readonly DeviceInfo[], workloads: ReadonlySet<string>, paramProblems: readonly string[] = []): DeviceInfo[] {
  const errors: string[] = [...paramProblems];
  const chosen: DeviceInfo[] = [];
  const gpus = devices.filter((d) => d.kind === 'gpu');
  plan.devices.forEach((index, i) => {
    const d = gpus.find((g) => g.index === index);
    if (!d) errors.push(`devices.${i}: no GPU with index ${index} (available: ${gpus.map((g) => g.index).join(', ') || 'none'})`);
    else chosen.push(d);
  });
  plan.workloads.forEach((w, i) => {
    if (!workloads.has(w.id)) errors.push(`workloads.${i}.id: unknown workload "${w.id}" (known: ${[...workloads].sort().join(', ')})`);
  });
  if (!plan.observe_only) {
    const caps = planCaps(plan.caps);
    for (const d of chosen) {
      const { min_limit_w: min, max_limit_w: max } = d;
      if (min === null || max === null) {
        errors.push(`caps: ${d.name} (#${d.index}) reports no limit range, so caps cannot be set; use observe_only`);
        continue;
      }
      // One line per cap, but not ten thousand of them: the first few, then how many more.
      const outside = caps.filter((cap) => cap < min || cap > max);
      for (const cap of outside.slice(0, MAX_LISTED)) errors.push(`caps: ${cap} W is outside the allowed range of ${d.name} (#${d.index}): ${min}-${max} W`);
      if (outside.length > MAX_LISTED) errors.push(`caps: and ${outside.length - MAX_LISTED} more caps outside the allowed range of ${d.name} (#${d.index}): ${min}-${max} W`);
    }
  }
  if (errors.length) throw new PlanError(`invalid plan:\n  ${[...new Set(errors)].join('\n  ')}`, [...new Set(errors)]);
  return chosen;
}
