/** CapLab's protocol prefix (docs/line-protocol.md); it may follow other text on its line. */
const PREFIX = '@caplab ';

/**
 * Folds CapLab protocol lines out of a workload's terminal output, so the terminal shows the workload's own
 * output. Output arrives in arbitrary chunks: a trailing partial line is held back only while it could still
 * become a protocol line. With `show`, protocol lines stay, dimmed. Counts what it hid.
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
    this.hidden++;
    // Text a logger printed before the prefix on the same line is the workload's own.
    const before = line.slice(0, line.indexOf(PREFIX)).replace(/\r/g, '').trimEnd();
    return before || this.midLine ? before + '\n' : '';
  }
}

/** A line start that is, or may still become, a protocol line (the prefix is complete or cut off at the end). */
function couldBeProtocol(s: string): boolean {
  if (s.includes(PREFIX)) return true;
  for (let k = Math.min(PREFIX.length - 1, s.length); k > 0; k--) if (s.endsWith(PREFIX.slice(0, k))) return true;
  return false;
}
