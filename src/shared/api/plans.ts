import { z } from 'zod';
import { Plan } from '../plan';

/**
 * One problem of a plan at its field: `path` dotted ('' for the plan as a whole), `message` in words, `severity`
 * whether it stops the plan ('error') or only warns. Optional so that the checks need not repeat it: absent, the
 * list it is in says (`issues` are errors, `warnings` warnings); the API sets it wherever issues cross it.
 */
export const PlanIssueSeverity = z.enum(['error', 'warning']);
export const PlanIssue = z.object({ path: z.string(), message: z.string(), severity: PlanIssueSeverity.optional() });
export type PlanIssue = z.infer<typeof PlanIssue>;

/** The Designer's plan: checking it, its YAML both ways, and the workloads it can name. */
export const planMethods = {
  validatePlan: {
    input: z.object({ plan: z.unknown() }).strict(),
    output: z.object({
      ok: z.boolean(),
      errors: z.array(z.string()),
      /** The same problems at their fields: `path` dotted (`caps.from`, `workloads.0.id`), `message` in words. */
      issues: z.array(PlanIssue),
      plan: Plan.nullable(),
      run_count: z.number().int(),
      /** Wall seconds the sweep should take: process start-up, warm-up, window and cool-down of every run (simulated speed-up applied). */
      estimate_s: z.number().nullable(),
      /** What the estimate includes, in words. */
      estimate_basis: z.string().nullable().default(null),
      /**
       * What the plan's warm-up, window or timeouts do not allow for, at their fields (a workload's start-up and ramp
       * from its earlier runs on this device or the simulator's model; what the steady-state test needs). Warnings,
       * not errors: `ok` stays true and the plan may start.
       */
      warnings: z.array(PlanIssue).default([]),
      /** Plan `adaptive`: expected and most device time, wall seconds like estimate_s, beside the same plan fixed. */
      adaptive_estimate: z.object({ fixed_s: z.number(), adaptive_s: z.number(), max_s: z.number(), assumptions: z.string() }).nullable().optional(),
    }),
  },
  planToYaml: { input: z.object({ plan: Plan }).strict(), output: z.object({ yaml: z.string() }) },
  planFromYaml: {
    input: z.object({ yaml: z.string().max(1_000_000) }).strict(),
    output: z.object({ ok: z.boolean(), errors: z.array(z.string()), issues: z.array(PlanIssue), plan: Plan.nullable() }),
  },
  listWorkloads: {
    input: z.object({}).strict(),
    output: z.array(z.object({ id: z.string(), title: z.string(), units: z.string() })),
  },
} as const;
