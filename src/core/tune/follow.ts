// Following a job's progress live from its output lines: CapLab's protocol step events as they come, or, for the
// other tools' output, the lines kept with the time they arrived so any stretch can be read by the same adapters
// as `caplab throughput` reads a finished log.
import { parseProtocolLine } from '../../shared/protocol';
import { detectAdapter, getAdapter, readThroughput, type ThroughputResult } from '../adapters';
import type { ProgressStep } from './visit';

export interface FollowedLine {
  /** Backend time the line arrived. */
  at: number;
  text: string;
}

/** Most lines kept for adapter reads (a job may print for days; profiling reads only recent stretches). */
const MAX_LINES = 200_000;

export class ProgressFollower {
  readonly steps: ProgressStep[] = [];
  /** Steps after the workload's own `measure` phase began (the protocol adapter's window). */
  measureFrom: number | null = null;
  /** Steps before the workload's `cooldown` or `done` phase (the end of its measure phase). */
  measureTo: number | null = null;
  units: string | null = null;
  gpus: number | null = null;
  private lines: FollowedLine[] = [];
  private dropped = 0;
  private protocolLines = 0;

  /** The first line of a followed file (a CSV header), put before every stretch read from it. */
  header: string | null = null;

  constructor(private readonly adapter: string) {}

  push(text: string, at: number): void {
    const parsed = text.includes('@caplab ') ? parseProtocolLine(text) : null;
    if (parsed?.kind === 'event') {
      this.protocolLines++;
      const e = parsed.event;
      if (e.ev === 'step') this.steps.push({ t: e.t, units: e.units, dt: e.dt });
      else if (e.ev === 'start') {
        this.units = e.units;
        this.gpus = e.gpus;
      } else if (e.ev === 'phase' && e.name === 'measure' && this.measureFrom === null) this.measureFrom = this.steps.length;
      else if (e.ev === 'phase' && (e.name === 'cooldown' || e.name === 'done') && this.measureFrom !== null && this.measureTo === null) this.measureTo = this.steps.length;
    }
    this.lines.push({ at, text });
    if (this.lines.length > MAX_LINES) {
      const cut = this.lines.length - MAX_LINES;
      this.lines.splice(0, cut);
      this.dropped += cut;
    }
  }

  /** The adapter reading this job: the one asked for, else (auto) the one that recognises its output so far. */
  resolvedAdapter(): string | null {
    if (this.adapter !== 'auto') return this.adapter;
    this.resolved ??= this.detect();
    return this.resolved;
  }

  private resolved: string | null = null;

  private detect(): string | null {
    if (this.protocolLines > 0 && this.steps.length > 0) return 'protocol';
    const all = this.text(-Infinity, Infinity);
    return detectAdapter(this.header !== null ? `${this.header}\n${all}` : all)?.name ?? null;
  }

  /** Whether progress is read from step events (the protocol) rather than re-read text. */
  get stepped(): boolean {
    return this.resolvedAdapter() === 'protocol';
  }

  /** Lines that arrived in [from, to), joined. */
  text(from: number, to: number): string {
    return this.lines
      .filter((l) => l.at >= from && l.at < to)
      .map((l) => l.text)
      .join('\n');
  }

  /** Reads the lines that arrived in [from, to) with the job's adapter, none of them skipped as warm-up. */
  readStretch(from: number, to: number, opts: { pattern?: string; units?: string } = {}): ThroughputResult {
    const adapter = this.resolvedAdapter();
    if (!adapter || !getAdapter(adapter)) throw new Error('no adapter recognises the job output yet');
    const body = this.text(from, to);
    return readThroughput(this.header !== null ? `${this.header}\n${body}` : body, { adapter, skip: 0, pattern: opts.pattern, units: opts.units, file: 'job output' });
  }

  /**
   * The whole job's rate the way the protocol adapter reads a finished log: the steps of the workload's measure
   * phase (else all but the first), from the first one's start to the last one's end.
   */
  protocolRate(): { units: number; seconds: number; rate: number } | null {
    const from = this.measureFrom ?? 1;
    const s = this.steps.slice(from, this.measureFrom !== null ? (this.measureTo ?? undefined) : undefined);
    if (s.length === 0) return null;
    const units = s.reduce((a, x) => a + x.units, 0);
    const seconds = s[s.length - 1]!.t - (s[0]!.t - s[0]!.dt);
    return seconds > 0 ? { units, seconds, rate: units / seconds } : null;
  }

  get linesDropped(): number {
    return this.dropped;
  }
}
