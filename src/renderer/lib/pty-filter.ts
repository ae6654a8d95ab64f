import { parseProtocolLine, PROTOCOL_PREFIX as PREFIX, type ProtocolEvent } from '../../shared/protocol';

/** A protocol event in words, for the folded view; steps and metrics (many per second) are not shown. */
function eventWords(e: ProtocolEvent): string | null {
  switch (e.ev) {
    case 'start':
      return `started ${e.workload}: ${e.units} on ${e.gpus} GPU${e.gpus === 1 ? '' : 's'}${e.batch_size != null ? `, batch ${e.batch_size}` : ''}`;
    case 'phase':
      return `phase: ${e.name}`;
    case 'summary':
      return `summary: ${e.units} units in ${e.seconds.toFixed(1)} s (${e.rate.toFixed(1)}/s)`;
    case 'error':
      return `error (${e.kind}): ${e.message}`;
    default:
      return null;
  }
}

/**
 * Folds CapLab protocol lines in a workload's terminal output, so the terminal shows the workload's own output:
 * start, phases, summary and errors become one short dimmed line each, steps and metrics are hidden (counted).
 * Output arrives in arbitrary chunks: a trailing partial line is held back only while it could still become a
 * protocol line. With `show`, every protocol line stays as printed, dimmed.
 */
export class ProtocolLineFilter {
  private partial = '';
  /** Part of the current line was already written (it did not look like a protocol line yet). */
  private midLine = false;
  hidden = 0;

  constructor(readonly show: boolean) {}

  push(chunk: string): string {
    const text = this.partial + chunk;
    this.partial = '';
    const lines = text.split('\n');
    const last = lines.pop()!;
    let out = '';
    for (const line of lines) {
      out += this.line(line);
      this.midLine = false;
    }
    if (couldBeProtocol(last)) this.partial = last;
    else if (last) {
      out += last;
      this.midLine = true;
    }
    return out;
  }

  private line(line: string): string {
    if (!line.includes(PREFIX)) return line + '\n';
    if (this.show) return `\x1b[2m${line.replace(/\r$/, '')}\x1b[0m\n`;
    // Text a logger printed before the prefix on the same line is the workload's own.
    const before = line.slice(0, line.indexOf(PREFIX)).replace(/\r/g, '').trimEnd();
    const parsed = parseProtocolLine(line);
    if (parsed.kind !== 'event') return line + '\n';
    const words = eventWords(parsed.event);
    if (words) return `${before ? `${before} ` : this.midLine ? '\n' : ''}\x1b[2m· caplab ${words}\x1b[0m\n`;
    this.hidden++;
    return before || this.midLine ? before + '\n' : '';
  }
}

/** A line start that is, or may still become, a protocol line (the prefix is complete or cut off at the end). */
function couldBeProtocol(s: string): boolean {
  if (s.includes(PREFIX)) return true;
  for (let k = Math.min(PREFIX.length - 1, s.length); k > 0; k--) if (s.endsWith(PREFIX.slice(0, k))) return true;
  return false;
}
