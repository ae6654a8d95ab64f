import { z } from 'zod';

/**
 * CapLab's workload line protocol (docs/line-protocol.md): a workload prints one line per event,
 * `@caplab ` followed by a JSON object. Every other line is ordinary output and is kept as such.
 * t is wall time in seconds since the epoch (simulated time for simulated workloads).
 */
export const PROTOCOL_PREFIX = '@caplab ';

export const ProtocolEvent = z.discriminatedUnion('ev', [
  z.object({ ev: z.literal('start'), t: z.number(), workload: z.string(), units: z.string(), gpus: z.number().int().positive().default(1), batch_size: z.number().optional() }),
  z.object({ ev: z.literal('phase'), t: z.number(), name: z.enum(['warmup', 'measure', 'cooldown', 'done']) }),
  /** One step: `units` work units done in the step that ended at t and took dt seconds, summed over all GPUs. */
  z.object({ ev: z.literal('step'), t: z.number(), n: z.number().int().nonnegative(), units: z.number().nonnegative(), dt: z.number().positive() }),
  z.object({ ev: z.literal('metric'), t: z.number(), name: z.string(), value: z.number() }),
  z.object({ ev: z.literal('summary'), t: z.number(), units: z.number().nonnegative(), seconds: z.number().positive(), rate: z.number().nonnegative() }),
  z.object({ ev: z.literal('error'), t: z.number(), message: z.string(), kind: z.enum(['oom', 'crash', 'config', 'other']).default('other') }),
]);
export type ProtocolEvent = z.infer<typeof ProtocolEvent>;

export type ParsedLine =
  | { kind: 'event'; event: ProtocolEvent }
  | { kind: 'text'; text: string }
  | { kind: 'invalid'; text: string; error: string };

/** Parse one output line (without its newline). Garbage after the prefix is reported, never thrown. */
export function parseProtocolLine(line: string): ParsedLine {
  const text = line.replace(/\r$/, '');
  const at = text.indexOf(PROTOCOL_PREFIX);
  if (at < 0) return { kind: 'text', text };
  const body = text.slice(at + PROTOCOL_PREFIX.length);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'invalid', text, error: 'not JSON after @caplab' };
  }
  const parsed = ProtocolEvent.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', text, error: `${issue?.path.join('.') || 'event'}: ${issue?.message ?? 'invalid'}` };
  }
  return { kind: 'event', event: parsed.data };
}

export function formatProtocolEvent(event: ProtocolEvent): string {
  return PROTOCOL_PREFIX + JSON.stringify(event);
}

/** Splits a stream of chunks into lines; keeps the unfinished tail for the next chunk. */
export class LineSplitter {
  private tail = '';
  push(chunk: string): string[] {
    const parts = (this.tail + chunk).split('\n');
    this.tail = parts.pop() ?? '';
    return parts;
  }
  flush(): string[] {
    const rest = this.tail;
    this.tail = '';
    return rest ? [rest] : [];
  }
}
