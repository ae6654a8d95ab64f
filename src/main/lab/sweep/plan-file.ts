import { readFileSync } from 'node:fs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { Plan } from '../../../shared/plan';
import { PlanError } from '../input/errors';
import { planIssuesOf, shapeIssue, type PlanIssue } from '../input/issues';

/** The plan's schema problems, in words at their fields; empty when it parses. */
export function schemaIssues(value: unknown): { plan: Plan | null; issues: PlanIssue[] } {
  const shape = shapeIssue(value);
  if (shape) return { plan: null, issues: [shape] };
  const r = Plan.safeParse(value);
  return r.success ? { plan: r.data, issues: [] } : { plan: null, issues: planIssuesOf(r.error.issues, value) };
}

export function parsePlan(value: unknown, where = 'plan'): Plan {
  const { plan, issues } = schemaIssues(value);
  if (!plan) throw PlanError.of(where, issues);
  return plan;
}

/** Parses YAML text into a value (not yet checked against the plan schema). */
function yamlValue(text: string, where = 'plan'): unknown {
  try {
    return parseYaml(text);
  } catch (e) {
    throw new PlanError(`${where}: not valid YAML: ${(e as Error).message}`);
  }
}

export function planFromYaml(text: string, where = 'plan'): Plan {
  return parsePlan(yamlValue(text, where), where);
}

/** Why a plan file cannot be read, in words (not a bare errno code). */
function unreadablePlan(file: string, e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT') return `no such file: ${file}`;
  if (e.code === 'EISDIR') return `${file} is a folder, not a plan file`;
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied reading ${file}`;
  return `cannot read plan ${file}: ${e.message}`;
}

/** A plan file's YAML as a value, not yet checked (the caller reports schema and device problems together). */
export function readPlanValue(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PlanError(unreadablePlan(file, e as NodeJS.ErrnoException));
  }
  return yamlValue(text, file);
}

export function readPlanFile(file: string): Plan {
  return parsePlan(readPlanValue(file), file);
}

export function planToYaml(plan: Plan): string {
  return stringifyYaml(plan);
}
