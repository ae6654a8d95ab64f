// CAPLAB_TRACE_FILE=FILE: one JSON line per plan check and per GPU backend opened, appended to FILE by whichever
// process does it (the CLI, the host, the app). It shows how often a command does the costly steps of reading a plan
// (test/integration/plan-once.test.ts counts them for `caplab sweep` and the API); unset, nothing is written.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type TraceEvent = 'plan.check' | 'backend.open';

export function trace(env: NodeJS.ProcessEnv, event: TraceEvent, fields: Record<string, string | number | boolean> = {}): void {
  const file = env.CAPLAB_TRACE_FILE;
  if (!file) return;
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify({ event, pid: process.pid, ...fields })}\n`);
}
