import type { z } from 'zod';
import type { PlanIssue } from '../../../shared/api/plans';
import { fieldLabel } from '../../../shared/plan-labels';
import { cutText } from '../../../shared/format';

export type { PlanIssue };

const UNITS: Record<string, string> = { cooldown_s: ' s', sample_interval_ms: ' ms', overhead_w: ' W', hang_timeout_s: ' s', run_timeout_s: ' s', 'warmup.seconds': ' s', 'window.seconds': ' s', 'caps.from': ' W', 'caps.to': ' W', 'caps.step': ' W', 'caps.adaptive.from': ' W', 'caps.adaptive.to': ' W', 'caps.adaptive.step': ' W', 'caps.adaptive.width_w': ' W' };

/** zod's own wording, which these messages replace ("Too small: expected number to be >=1"). */
const ZOD_DEFAULT = /^(Too (small|big)|Invalid|Unrecognized|Expected)/;

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** A value as a message quotes it, cut to 200 characters. */
function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return v === '' ? 'an empty text' : `"${cutText(v)}"`;
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    // A value holding itself (shapeIssue refuses such plans first; other documents may not).
    s = Array.isArray(v) ? 'a list' : `a ${typeof v}`;
  }
  return cutText(s);
}

/** Deepest nesting a plan may have: its own is 4 levels (workloads.0.params.NAME.0). */
export const MAX_DOCUMENT_DEPTH = 32;

/**
 * A document that holds itself (a YAML alias used inside its own anchor: `a: &a [*a]`) or is nested deeper than
 * MAX_DOCUMENT_DEPTH (100,000-deep JSON), as one issue, or null. Walked without recursion, before anything that
 * recurses (the schema, JSON.stringify) meets it.
 */
export function shapeIssue(root: unknown, doc: DocumentWords = PLAN_WORDS): PlanIssue | null {
  interface At {
    v: object;
    path: string;
    depth: number;
    up: At | null;
  }
  const stack: At[] = root !== null && typeof root === 'object' ? [{ v: root, path: '', depth: 1, up: null }] : [];
  while (stack.length) {
    const at = stack.pop()!;
    for (let a = at.up; a; a = a.up)
      if (a.v === at.v) return { path: at.path, message: `${doc.whole} holds itself at ${at.path || '(top)'} (an alias used inside its own anchor?): it must be plain data` };
    if (at.depth > MAX_DOCUMENT_DEPTH) return { path: '', message: `${doc.whole} is nested more than ${MAX_DOCUMENT_DEPTH} levels deep (at ${cutText(at.path)})` };
    for (const [k, v] of Object.entries(at.v)) if (v !== null && typeof v === 'object') stack.push({ v, path: at.path ? `${at.path}.${k}` : k, depth: at.depth + 1, up: at });
  }
  return null;
}

/**
 * How a kind of document names itself and its fields in problem messages. A plan: the designer's labels
 * ("Repetitions"), lines `path: message`, '(plan)' for the plan as a whole. A self-naming document (a facility
 * config): each message names its field by path (`jobs[0].nodes`), so a line is the message alone.
 */
export interface DocumentWords {
  /** The document as a whole ("The plan"). */
  whole: string;
  /** A field's name in messages, from its dotted path. */
  label(path: string): string;
  units: Record<string, string>;
  selfNaming: boolean;
}

export const PLAN_WORDS: DocumentWords = { whole: 'The plan', label: fieldLabel, units: UNITS, selfNaming: false };

/** A dotted path with list indexes in brackets: jobs.0.profile -> jobs[0].profile. */
export function bracketPath(path: string): string {
  return path.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/** A facility config's words: fields by their path in the YAML, numbers as written. */
export const FACILITY_WORDS: DocumentWords = { whole: 'The facility config', label: bracketPath, units: {}, selfNaming: true };

/** One zod issue in words at its field, naming the field as the document does. */
function words(issue: z.core.$ZodIssue, root: unknown, doc: DocumentWords): PlanIssue {
  const r = wordsOf(issue, root, doc);
  // Unknown fields are named by their whole paths already.
  if (!doc.selfNaming || r.path === '' || issue.code === 'unrecognized_keys') return r;
  const label = doc.label(r.path);
  return r.message.startsWith(label) ? r : { path: r.path, message: `${label}: ${r.message}` };
}

/** One zod issue in words, e.g. "Repetitions must be at least 1 (got 0)". */
function wordsOf(issue: z.core.$ZodIssue, root: unknown, doc: DocumentWords): PlanIssue {
  const path = issue.path.map(String).join('.');
  const label = doc.label(path);
  const unit = doc.units[path] ?? '';
  const got = valueAt(root, issue.path);
  const gotText = ` (got ${shown(got)})`;
  // A bound the schema words itself ("at most 100000 W", "a step of at least 0.01 W") is kept as written.
  if ((issue.code === 'too_small' || issue.code === 'too_big') && !ZOD_DEFAULT.test(issue.message)) return { path, message: `${issue.message}${gotText}` };
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'array') return { path, message: `${label} needs at least ${String(issue.minimum)} entr${issue.minimum === 1 ? 'y' : 'ies'}` };
      if (issue.origin === 'string') return { path, message: `${label} must not be empty` };
      return { path, message: `${label} must be ${issue.inclusive ? 'at least' : 'more than'} ${String(issue.minimum)}${unit}${gotText}` };
    case 'too_big':
      return { path, message: `${label} must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}${unit}${gotText}` };
    case 'invalid_type':
      if (got === undefined) return { path, message: `${label} is missing` };
      // A blank form field arrives as null.
      if (got === null) return { path, message: `${label} is empty: enter a value` };
      if (issue.expected === 'int') return { path, message: `${label} must be a whole number${gotText}` };
      return { path, message: `${label} must be ${issue.expected === 'number' ? 'a number' : issue.expected === 'array' ? 'a list' : issue.expected === 'boolean' ? 'true or false' : issue.expected === 'object' ? 'a set of fields' : `a ${issue.expected}`}${gotText}` };
    case 'invalid_value':
      return { path, message: `${label} must be one of ${issue.values.map((v) => String(v)).join(', ')}${gotText}` };
    case 'unrecognized_keys': {
      const plural = issue.keys.length > 1 ? 's' : '';
      // A self-naming document names each unknown field by its whole path: "unknown field jobs[0].foo".
      if (doc.selfNaming) return { path, message: `unknown field${plural} ${issue.keys.map((k) => doc.label(path ? `${path}.${k}` : k)).join(', ')}` };
      return { path, message: `${path ? `${label} has` : `${doc.whole} has`} unknown field${plural} ${issue.keys.join(', ')}` };
    }
    case 'invalid_union':
      // A union with its own explanation (caps: which form was meant and what is wrong with it) keeps it.
      if (issue.message && issue.message !== 'Invalid input') return { path, message: `${label}${issue.message.startsWith('must') ? ' ' : ': '}${issue.message}` };
      if (path === 'caps') return { path, message: 'Caps must be a list of watts ([250, 300, 350]), a range {from, to, step} or {adaptive: {from, to, step}}' };
      if (path === 'warmup' || path === 'window') return { path, message: `${label} must be {seconds: N} or {steps: N} with N above 0` };
      return { path, message: `${label} is not valid${gotText}` };
    case 'custom':
      return { path, message: issue.message };
    default:
      return { path, message: `${label}: ${issue.message}` };
  }
}

/** A schema failure as issues in words (a plan's unless `doc` says otherwise), each at its field, without repeats. */
export function planIssuesOf(issues: readonly z.core.$ZodIssue[], root: unknown, doc: DocumentWords = PLAN_WORDS): PlanIssue[] {
  const seen = new Set<string>();
  return issues.map((i) => words(i, root, doc)).filter((i) => !seen.has(i.path + i.message) && seen.add(i.path + i.message));
}

/** The issues marked `severity` where they cross the API (the checks leave it out: their list says which they are). */
export function marked(issues: readonly PlanIssue[], severity: NonNullable<PlanIssue['severity']>): PlanIssue[] {
  return issues.map((i) => ({ ...i, severity: i.severity ?? severity }));
}

/** One line per issue (the CLI prints these; `errors` of validatePlan): `path: message` for a plan, the message itself for a self-naming document. */
export function issueLines(issues: readonly PlanIssue[], doc: DocumentWords = PLAN_WORDS): string[] {
  return issues.map((i) => (doc.selfNaming ? i.message : `${i.path || '(plan)'}: ${i.message}`));
}
