import * as pty from 'node-pty';
import { LineSplitter } from '../../../shared/protocol';
import { killTree } from './process-tree';

export interface PtyRunOptions {
  /** Program and arguments; never a shell string. */
  argv: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  cols?: number;
  rows?: number;
  /** Most bytes of output kept for the run record. */
  keepBytes?: number;
  onData?: (chunk: string) => void;
  onLine?: (line: string) => void;
}

export interface PtyExit {
  exitCode: number;
  signal: number | null;
}

/** A child process in a pseudo-terminal: its output is streamed, split into lines and the tail kept. */
export class PtyRun {
  readonly pid: number;
  readonly exited: Promise<PtyExit>;
  private readonly proc: pty.IPty;
  private readonly splitter = new LineSplitter();
  private tail: string[] = [];
  private tailBytes = 0;
  private done = false;

  constructor(private readonly opts: PtyRunOptions) {
    const [file, ...args] = opts.argv;
    if (!file) throw new Error('empty command line');
    this.proc = pty.spawn(file, [...args], {
      name: 'xterm-256color',
      cols: opts.cols ?? 120,
      rows: opts.rows ?? 30,
      cwd: opts.cwd ?? process.cwd(),
      env: (opts.env ?? process.env) as Record<string, string>,
    });
    this.pid = this.proc.pid;
    this.proc.onData((chunk) => {
      opts.onData?.(chunk);
      for (const line of this.splitter.push(chunk)) this.line(line);
    });
    this.exited = new Promise((resolve) => {
      this.proc.onExit(({ exitCode, signal }) => {
        this.done = true;
        for (const line of this.splitter.flush()) this.line(line);
        resolve({ exitCode, signal: signal ?? null });
      });
    });
  }

  private line(raw: string): void {
    const line = raw.replace(/\r$/, '');
    this.tail.push(line);
    this.tailBytes += line.length + 1;
    const cap = this.opts.keepBytes ?? 64 * 1024;
    while (this.tailBytes > cap && this.tail.length > 1) this.tailBytes -= this.tail.shift()!.length + 1;
    this.opts.onLine?.(line);
  }

  /** The last lines of output (all of it when short). */
  outputTail(lines = Infinity): string {
    return this.tail.slice(-lines).join('\n');
  }

  write(data: string): void {
    if (!this.done) this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.done) this.proc.resize(cols, rows);
  }

  /** Ends the process and its whole tree; resolves once the pty reports the exit. */
  async kill(graceMs = 3000): Promise<PtyExit> {
    if (!this.done) await killTree(this.pid, graceMs);
    return this.exited;
  }
}
