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
  /** dt of at least a microsecond: a shorter step cannot be timed, and would make an infinite rate. */
  z.object({ ev: z.literal('step'), t: z.number(), n: z.number().int().nonnegative(), units: z.number().nonnegative(), dt: z.number().min(1e-6, 'dt: at least 1e-6 s') }),
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

/** Longest line kept whole; the rest of a longer line is dropped and counted (a workload printing without newlines). */
export const MAX_LINE_CHARS = 64 * 1024;

/**
 * Splits a stream of chunks into lines; keeps the unfinished tail for the next chunk. Linear in the input: each
 * chunk is scanned once, and an unfinished line holds at most `maxLine` characters (the rest is counted, then
 * noted at the end of the line as "… [N characters cut]").
 */
export class LineSplitter {
  private parts: string[] = [];
  private kept = 0;
  private cut = 0;
  constructor(private readonly maxLine = MAX_LINE_CHARS) {}

  private take(piece: string): void {
    const room = this.maxLine - this.kept;
    if (piece.length <= room) {
      if (piece) this.parts.push(piece);
      this.kept += piece.length;
      return;
    }
    if (room > 0) this.parts.push(piece.slice(0, room));
    this.kept = this.maxLine;
    this.cut += piece.length - Math.max(0, room);
  }

  private end(): string {
    const line = this.parts.join('') + (this.cut ? `… [${this.cut} characters cut]` : '');
    this.parts = [];
    this.kept = 0;
    this.cut = 0;
    return line;
  }

  push(chunk: string): string[] {
    const out: string[] = [];
    let from = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', from)) {
      this.take(chunk.slice(from, nl));
      out.push(this.end());
      from = nl + 1;
    }
    this.take(chunk.slice(from));
    return out;
  }

  flush(): string[] {
    return this.kept || this.cut ? [this.end()] : [];
  }
}
