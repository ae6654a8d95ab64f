// Plans as stored with their sweep. The plan schema tightens between releases (bounds, strict keys); a sweep
// recorded by any earlier release must still open, so stored plans are read leniently: what the current schema
// refuses falls back to its default, with a note saying so, and a plan nothing can be made of becomes a minimal
// one built from the sweep's own runs.
import { Plan } from '../../../shared/plan';

/** Version of the plan schema written with new sweeps (sweeps.plan_version). 1: CapLab 0.1.0; 3: the optional `cluster` field. */
export const PLAN_SCHEMA_VERSION = 3;

export interface StoredPlan {
  plan: Plan;
  /** What could not be read as recorded (empty when the plan parsed as is). */
  notes: string[];
}

const MAX_ATTEMPTS = 16;

/** The recorded runs' workloads and caps, for a plan beyond repair. */
export interface RecordedRuns {
  workloads: string[];
  caps: number[];
}

export function readStoredPlan(json: string, version: number, runs: () => RecordedRuns): StoredPlan {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return fallback({}, [`the stored plan is not JSON (${(e as Error).message})`], runs);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fallback({}, ['the stored plan is not an object'], runs);
  const obj: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const notes: string[] = [];
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const r = Plan.safeParse(obj);
    if (r.success) return { plan: r.data, notes };
    const keys = [...new Set(r.error.issues.map((issue) => (issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0] ?? '')])).flat())].filter(
      (k) => k !== '' && k in obj,
    );
    if (keys.length === 0) break;
    for (const k of keys) {
      const why = r.error.issues.find((issue) => issue.path[0] === k || (issue.code === 'unrecognized_keys' && issue.keys.includes(k)));
      notes.push(`plan field "${k}" (schema v${version}) is not readable by this CapLab (${why?.message ?? 'invalid'}); shown with its default`);
      delete obj[k];
    }
  }
  return fallback(obj, [...notes, 'the stored plan could not be read; a plan was rebuilt from the recorded runs'], runs);
}

function fallback(obj: Record<string, unknown>, notes: string[], runs: () => RecordedRuns): StoredPlan {
  const recorded = runs();
  const name = typeof obj.name === 'string' ? obj.name.slice(0, 200) : 'recorded sweep';
  const caps = recorded.caps.filter((c) => c > 0 && c <= 100_000);
  const plan = Plan.safeParse({ name, workloads: (recorded.workloads.length ? recorded.workloads : ['unknown']).map((id) => ({ id })), caps: caps.length ? caps : [1] });
  // A workload id beyond the schema's rules still names itself in the runs; the plan then lists 'recorded'.
  return { plan: plan.success ? plan.data : Plan.parse({ name, workloads: [{ id: 'recorded' }], caps: [1] }), notes };
}
