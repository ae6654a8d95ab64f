import { LabError, type ErrorCode } from '../../../shared/errors';
import { readFileSync } from 'node:fs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { Plan } from '../../../shared/plan';

/** A plan (or a request about one) that cannot be used; `code` says why (invalid by default). */
export class PlanError extends LabError {
  constructor(
    message: string,
    readonly errors: string[] = [message],
    code: ErrorCode = 'invalid',
  ) {
    super(code, message);
    this.name = 'PlanError';
  }
}

/** A sweep or run id that does not exist (404 through the host, exit 2 in the CLI). */
export class NotFoundError extends PlanError {
  constructor(message: string) {
    super(message, [message], 'not_found');
    this.name = 'NotFoundError';
  }
}

/** zod issues as `field.path: message` lines. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string[] {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(plan)'}: ${i.message}`);
}

export function parsePlan(value: unknown, where = 'plan'): Plan {
  const r = Plan.safeParse(value);
  if (!r.success) {
    const errors = describeIssues(r.error.issues);
    throw new PlanError(`${where}: invalid plan\n  ${errors.join('\n  ')}`, errors);
  }
  return r.data;
}

export function planFromYaml(text: string, where = 'plan'): Plan {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    throw new PlanError(`${where}: not valid YAML: ${(e as Error).message}`);
  }
  return parsePlan(value, where);
}

export function readPlanFile(file: string): Plan {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PlanError(`cannot read plan ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return planFromYaml(text, file);
}

export function planToYaml(plan: Plan): string {
  return stringifyYaml(plan);
}
