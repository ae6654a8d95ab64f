// Paged reads of the contract (listRuns, listSamples): a page at a time with an opaque `next` cursor, so a sweep of
// thousands of runs or a trace of millions of samples reaches any face in bounded pieces. A cursor names what it
// pages (a hash of the request's scope), so one given to another sweep or source is refused as invalid.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../store/db';
import { getRun, getSweep, runsOfSweepAfter } from '../store/sweeps';
import { nodeOfRuns } from '../store/cluster-jobs';
import type { RunRecord } from '../../../shared/records';
import { streamRanges, type StreamRange } from '../store/sample-stream';
import { readSamplePage } from '../store/sample-page';
import { segmentFacts } from '../analysis/sources';
import { NotFoundError } from '../input/errors';
import { LabError } from '../../../shared/errors';
import { methods, type MethodInput, type MethodOutput } from '../../../shared/api';
import type { Source } from '../../../shared/source';

function scopeOf(what: unknown): string {
  return createHash('sha256').update(JSON.stringify(what)).digest('base64url').slice(0, 12);
}

function encode(scope: string, pos: object): string {
  return Buffer.from(JSON.stringify({ s: scope, ...pos })).toString('base64url');
}

/** The position a cursor holds; LabError 'invalid' when it is not one this scope handed out. */
function decode<T extends z.ZodRawShape>(cursor: string, scope: string, shape: T): z.infer<z.ZodObject<T>> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  const s = (value as { s?: unknown } | null)?.s;
  const { s: _s, ...rest } = (value ?? {}) as Record<string, unknown>;
  const r = z.object(shape).strict().safeParse(rest);
  if (typeof s !== 'string' || !r.success) throw new LabError('invalid', `cursor: "${cursor.slice(0, 40)}" is not a cursor of this method (pass the previous page's next)`);
  if (s !== scope) throw new LabError('invalid', 'cursor: it belongs to another sweep or source (pass the previous page\'s next of this one)');
  return r.data;
}

const runPosition = { order: z.number().int(), id: z.number().int() };
const samplePosition = { d: z.number().int().min(0), t: z.number().nullable(), k: z.number().int().min(0) };

/** Runs of a sweep with the node and host each ran on (a cluster sweep's; null for a sweep of one host). */
export function withNodes(db: Db, sweepId: number, runs: RunRecord[]): MethodOutput<'getSweep'>['runs'] {
  const nodes = nodeOfRuns(db, sweepId);
  return runs.map((r) => ({ ...r, node: nodes.get(r.id)?.node ?? null, hostname: nodes.get(r.id)?.hostname ?? null }));
}

export function listRunsPage(db: Db, given: MethodInput<'listRuns'>): MethodOutput<'listRuns'> {
  // Checked here too: the CLI calls the engine without a transport (a zod error is 'invalid', exit 2).
  const input = methods.listRuns.input.parse(given);
  if (!getSweep(db, input.sweep_id)) throw new NotFoundError(`no sweep ${input.sweep_id}`);
  const scope = scopeOf(['runs', input.sweep_id]);
  const after = input.cursor === undefined ? null : decode(input.cursor, scope, runPosition);
  const limit = input.limit;
  // One more than the page tells whether another page follows.
  const rows = runsOfSweepAfter(db, input.sweep_id, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    runs: withNodes(db, input.sweep_id, page),
    next: rows.length > limit && last ? encode(scope, { order: last.order, id: last.id }) : null,
  };
}

/** The stream ranges of a source: a run's devices over its span, a segment's (chosen) devices over its window. */
function rangesOf(db: Db, source: Source): StreamRange[] {
  if (source.kind === 'run') {
    if (!getRun(db, source.run_id)) throw new NotFoundError(`no run ${source.run_id}`);
    return streamRanges(db, { runId: source.run_id });
  }
  const { facts } = segmentFacts(db, source);
  const ranges = streamRanges(db, { datasetId: facts.dataset_id, from: facts.start, to: facts.end });
  const keys = facts.device_keys;
  return keys ? ranges.filter((r) => keys.includes(r.device)) : ranges;
}

export function listSamplesPage(db: Db, given: MethodInput<'listSamples'>): MethodOutput<'listSamples'> {
  const input = methods.listSamples.input.parse(given);
  const ranges = rangesOf(db, input.source);
  const scope = scopeOf(['samples', input.source]);
  const pos = input.cursor === undefined ? { d: 0, t: null, k: 0 } : decode(input.cursor, scope, samplePosition);
  const page = readSamplePage(db, ranges, pos, input.limit);
  return { samples: page.samples, next: page.next ? encode(scope, page.next) : null };
}
