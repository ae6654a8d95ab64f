import { LineSplitter, parseProtocolLine, type ProtocolEvent } from '../../../shared/protocol';
import type { Span } from '../../../shared/plan';
import type { ThroughputResult } from '../../../core/adapters';

/**
 * Follows one run's output (CapLab's line protocol) and decides what the sweep runner needs: when warm-up ends,
 * when the measurement window is complete and its throughput, and whether the run failed (crash, out of memory,
 * hang, garbage output) with the last output lines kept for the run record.
 *
 * Times come from the events' `t` (the workload's clock: wall time, or simulated time for simulated workloads),
 * the same clock the samples use, so the window can be laid over the power samples. Hang detection uses the
 * runner's clock (`now`), because a hung workload prints no times at all.
 *
 * Warm-up (plan `warmup`): `{steps: N}` ends with the N-th step; `{seconds: S}` ends with the first step ending
 * S seconds or more after the first step began. The window (plan `window`) starts where warm-up ends:
 * `{steps: N}` takes the next N steps; `{seconds: S}` runs until the first step ending S seconds or more later.
 * Throughput = units of the window's steps / (window end - window start), summed over GPUs; per GPU = / gpus.
 */

export type StepEvent = Extract<ProtocolEvent, { ev: 'step' }>;
type StartEvent = Extract<ProtocolEvent, { ev: 'start' }>;
type ErrorEvent = Extract<ProtocolEvent, { ev: 'error' }>;

export interface ProgressOptions {
  warmup: Span;
  window: Span;
  /** GPUs the run uses (the plan's device count); default the start event's `gpus`, else 1. */
  gpus?: number;
  /** No step for this long (runner clock) means the run hangs. Default 120 s. */
  hangTimeoutS?: number;
  /** Invalid protocol lines after which the output counts as garbage (when they also outnumber valid events). Default 20. */
  maxInvalidLines?: number;
  /** Output lines kept for the run record. Default 50. */
  keepLines?: number;
  /** Longest kept line; longer ones are cut. Default 500 characters. */
  maxLineLength?: number;
  /** The runner's clock in seconds (hang detection). Default wall time. */
  now?: () => number;
  /**
   * Asked after each window step before the plan's window is full: true ends the window at that step (the adaptive
   * window, plan `adaptive.window`); the plan's window stays the upper bound.
   */
  windowDone?: (step: StepEvent) => boolean;
}

export type RunPhase = 'starting' | 'warmup' | 'measure' | 'complete';

export interface MeasuredWindow {
  /** Epoch seconds (workload clock): warm-up end. */
  start: number;
  end: number;
  seconds: number;
  /** Work units in the window, summed over GPUs. */
  units: number;
  steps: number;
  /** Units per second, summed over GPUs. */
  rate: number;
  rate_per_gpu: number;
  gpus: number;
  /** images, tokens, requests (from the start event). */
  unit_name: string | null;
}

export type FailureReason = 'crash' | 'oom' | 'hang' | 'garbage' | 'error' | 'config' | 'incomplete';

export interface RunFailure {
  reason: FailureReason;
  message: string;
  exitCode: number | null;
  signal: number | null;
  lastLines: string[];
}

export type ProgressSignal =
  | { type: 'start'; event: StartEvent }
  | { type: 'step'; step: StepEvent; phase: RunPhase; rate: number }
  | { type: 'warmup-end'; t: number; steps: number }
  | { type: 'window-complete'; window: MeasuredWindow }
  | { type: 'metric'; t: number; name: string; value: number }
  | { type: 'failure'; failure: RunFailure };

export type RunOutcome =
  | { status: 'done'; window: MeasuredWindow; lastLines: string[] }
  | { status: 'failed'; failure: RunFailure }
  | { status: 'cancelled'; lastLines: string[]; window: MeasuredWindow | null };

export interface ProcessExit {
  exitCode: number | null;
  signal?: number | null;
  /** The runner stopped the run on purpose (user cancel); not a failure. */
  cancelled?: boolean;
}

const OOM_TEXT = /CUDA out of memory|OutOfMemoryError|HIP out of memory|hipErrorOutOfMemory|CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|RESOURCE_EXHAUSTED|\bout of memory\b/i;
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*(\u0007|\u001b\\)/g;

function isBinary(line: string): boolean {
  if (line.length < 8) return false;
  let bad = 0;
  for (const ch of line) {
    const c = ch.codePointAt(0)!;
    if (c === 0xfffd || (c < 0x20 && c !== 9) || (c >= 0x7f && c < 0xa0)) bad++;
  }
  return bad / line.length > 0.1;
}

export class RunProgress {
  private readonly splitter = new LineSplitter();
  private readonly opts: Required<Omit<ProgressOptions, 'gpus' | 'windowDone'>> & { gpus: number | undefined; windowDone: ProgressOptions['windowDone'] };
  private _phase: RunPhase = 'starting';
  private start: StartEvent | null = null;
  private firstStepStart: number | null = null;
  private warmupSteps = 0;
  private _warmupEnd: number | null = null;
  private windowSteps = 0;
  private windowUnits = 0;
  private _window: MeasuredWindow | null = null;
  private _failure: RunFailure | null = null;
  private errorEvent: ErrorEvent | null = null;
  private oomText: string | null = null;
  private lines: string[] = [];
  private validEvents = 0;
  private invalidLines = 0;
  private firstInvalid: string | null = null;
  private lastProgressAt: number;
  private _steps = 0;
  private _lastStep: StepEvent | null = null;
  private summary: Extract<ProtocolEvent, { ev: 'summary' }> | null = null;
  private readonly metrics = new Map<string, number>();

  constructor(opts: ProgressOptions) {
    this.opts = {
      warmup: opts.warmup,
      window: opts.window,
      gpus: opts.gpus,
      hangTimeoutS: opts.hangTimeoutS ?? 120,
      maxInvalidLines: opts.maxInvalidLines ?? 20,
      keepLines: opts.keepLines ?? 50,
      maxLineLength: opts.maxLineLength ?? 500,
      now: opts.now ?? (() => Date.now() / 1000),
      windowDone: opts.windowDone,
    };
    this.lastProgressAt = this.opts.now();
  }

  get phase(): RunPhase {
    return this._phase;
  }
  /** Workload-clock time warm-up ended, or null. */
  get warmupEnd(): number | null {
    return this._warmupEnd;
  }
  get window(): MeasuredWindow | null {
    return this._window;
  }
  get failure(): RunFailure | null {
    return this._failure;
  }
  get steps(): number {
    return this._steps;
  }
  get lastStep(): StepEvent | null {
    return this._lastStep;
  }
  get startEvent(): StartEvent | null {
    return this.start;
  }
  get workloadSummary(): Extract<ProtocolEvent, { ev: 'summary' }> | null {
    return this.summary;
  }
  get lastMetrics(): Record<string, number> {
    return Object.fromEntries(this.metrics);
  }
  get gpus(): number {
    return this.opts.gpus ?? this.start?.gpus ?? 1;
  }
  /** The last output lines (ANSI codes removed, long lines cut). */
  lastLines(): string[] {
    return [...this.lines];
  }

  /** Raw output (pty chunks); split into lines here. */
  pushChunk(chunk: string, now?: number): ProgressSignal[] {
    return this.splitter.push(chunk).flatMap((l) => this.pushLine(l, now));
  }

  /** One output line (without its newline). */
  pushLine(raw: string, now = this.opts.now()): ProgressSignal[] {
    const line = raw.replace(/\r$/, '');
    this.keep(line);
    const parsed = parseProtocolLine(line);
    if (parsed.kind === 'text') {
      if (!this.oomText && OOM_TEXT.test(line)) this.oomText = this.clean(line);
      if (isBinary(line)) return this.invalid(line);
      return [];
    }
    if (parsed.kind === 'invalid') return this.invalid(line, parsed.error);
    this.validEvents++;
    return this.event(parsed.event, now);
  }

  private clean(line: string): string {
    const s = line.replace(ANSI, '');
    return s.length > this.opts.maxLineLength ? `${s.slice(0, this.opts.maxLineLength)}…` : s;
  }

  private keep(line: string): void {
    this.lines.push(this.clean(line));
    if (this.lines.length > this.opts.keepLines) this.lines.splice(0, this.lines.length - this.opts.keepLines);
  }

  private invalid(line: string, error?: string): ProgressSignal[] {
    this.invalidLines++;
    this.firstInvalid ??= `${this.clean(line).slice(0, 120)}${error ? ` (${error})` : ''}`;
    if (!this._failure && this.invalidLines >= this.opts.maxInvalidLines && this.invalidLines > this.validEvents) {
      return this.fail('garbage', `the workload printed ${this.invalidLines} lines that are not valid protocol or text (first: ${this.firstInvalid})`);
    }
    return [];
  }

  private fail(reason: FailureReason, message: string, exit: ProcessExit = { exitCode: null }): ProgressSignal[] {
    this._failure = { reason, message, exitCode: exit.exitCode, signal: exit.signal ?? null, lastLines: this.lastLines() };
    return [{ type: 'failure', failure: this._failure }];
  }

  private event(ev: ProtocolEvent, now: number): ProgressSignal[] {
    switch (ev.ev) {
      case 'start':
        this.start = ev;
        return [{ type: 'start', event: ev }];
      case 'metric':
        this.metrics.set(ev.name, ev.value);
        return [{ type: 'metric', t: ev.t, name: ev.name, value: ev.value }];
      case 'summary':
        this.summary = ev;
        return [];
      case 'phase':
        return [];
      case 'error': {
        this.errorEvent = ev;
        if (this._failure || this._phase === 'complete') return [];
        const reason: FailureReason = ev.kind === 'oom' ? 'oom' : ev.kind === 'config' ? 'config' : ev.kind === 'crash' ? 'crash' : 'error';
        return this.fail(reason, ev.kind === 'oom' ? `out of GPU memory: ${ev.message}` : ev.message);
      }
      case 'step':
        return this.step(ev, now);
    }
  }

  private step(ev: StepEvent, now: number): ProgressSignal[] {
    this.lastProgressAt = now;
    this._steps++;
    this._lastStep = ev;
    const out: ProgressSignal[] = [];
    if (this._phase === 'starting') {
      this._phase = 'warmup';
      this.firstStepStart = ev.t - ev.dt;
    }
    const phaseBefore = this._phase;
    if (this._phase === 'warmup') {
      this.warmupSteps++;
      const w = this.opts.warmup;
      const done = 'steps' in w ? this.warmupSteps >= w.steps : ev.t - this.firstStepStart! >= w.seconds - 1e-9;
      if (done) {
        this._warmupEnd = ev.t;
        this._phase = 'measure';
        out.push({ type: 'warmup-end', t: ev.t, steps: this.warmupSteps });
      }
    } else if (this._phase === 'measure') {
      this.windowSteps++;
      this.windowUnits += ev.units;
      const w = this.opts.window;
      const done = ('steps' in w ? this.windowSteps >= w.steps : ev.t - this._warmupEnd! >= w.seconds - 1e-9) || this.opts.windowDone?.(ev) === true;
      if (done) {
        const seconds = ev.t - this._warmupEnd!;
        const rate = seconds > 0 ? this.windowUnits / seconds : 0;
        if (!(seconds > 0) || !Number.isFinite(rate)) {
          return this.fail('garbage', `the measurement window is ${seconds} s long with ${this.windowUnits} units: no finite throughput (check the steps' t and dt)`);
        }
        this._window = {
          start: this._warmupEnd!,
          end: ev.t,
          seconds,
          units: this.windowUnits,
          steps: this.windowSteps,
          rate,
          rate_per_gpu: rate / this.gpus,
          gpus: this.gpus,
          unit_name: this.start?.units ?? null,
        };
        this._phase = 'complete';
        out.unshift({ type: 'step', step: ev, phase: 'measure', rate: ev.units / ev.dt });
        out.push({ type: 'window-complete', window: this._window });
        return out;
      }
    }
    out.unshift({ type: 'step', step: ev, phase: phaseBefore, rate: ev.units / ev.dt });
    return out;
  }

  /** A failure when no step came for hang_timeout_s (runner clock), else null. Call it on a timer. */
  checkHang(now = this.opts.now()): RunFailure | null {
    if (this._failure) return this._failure.reason === 'hang' ? this._failure : null;
    if (this._phase === 'complete') return null;
    const idle = now - this.lastProgressAt;
    if (idle < this.opts.hangTimeoutS) return null;
    const what = this._steps ? `no step for ${idle.toFixed(0)} s after step ${this._lastStep!.n}` : `no step within ${idle.toFixed(0)} s of the start`;
    this.fail('hang', `${what} (hang_timeout_s ${this.opts.hangTimeoutS})`);
    return this._failure;
  }

  /** Classifies the run once its process has exited (flushes a last unfinished line first). */
  finish(exit: ProcessExit): RunOutcome {
    for (const l of this.splitter.flush()) this.pushLine(l);
    const signal = exit.signal ?? null;
    if (this._failure) {
      this._failure = { ...this._failure, exitCode: exit.exitCode, signal, lastLines: this.lastLines() };
      return { status: 'failed', failure: this._failure };
    }
    if (this._window) return { status: 'done', window: this._window, lastLines: this.lastLines() };
    if (exit.cancelled) return { status: 'cancelled', lastLines: this.lastLines(), window: null };
    const how = exit.exitCode !== null && exit.exitCode !== 0 ? `exited with code ${exit.exitCode}` : signal ? `was killed by signal ${signal}` : 'exited';
    const where = this._phase === 'starting' ? 'before its first step' : this._phase === 'warmup' ? `during warm-up (${this._steps} steps)` : `before the measurement window was complete (${this.windowSteps} of the window's steps)`;
    const failed = (exit.exitCode !== null && exit.exitCode !== 0) || !!signal;
    let reason: FailureReason;
    let message: string;
    if (this.oomText && failed) {
      reason = 'oom';
      message = `out of GPU memory: the workload ${how} ${where}; output: ${this.oomText.slice(0, 200)}`;
    } else if (failed) {
      reason = 'crash';
      message = `the workload ${how} ${where}`;
    } else {
      reason = 'incomplete';
      message = `the workload ${how} ${where}`;
    }
    this._failure = { reason, message, exitCode: exit.exitCode, signal, lastLines: this.lastLines() };
    return { status: 'failed', failure: this._failure };
  }

  /** Counts for the run record and debugging. */
  stats(): { steps: number; valid_events: number; invalid_lines: number; first_invalid: string | null; error_event: ErrorEvent | null } {
    return { steps: this._steps, valid_events: this.validEvents, invalid_lines: this.invalidLines, first_invalid: this.firstInvalid, error_event: this.errorEvent };
  }
}

/**
 * A finished log read by a throughput adapter (caplab throughput, a `command` workload's output or file) as a
 * measurement window the energy can be laid over. Null when the adapter cannot place the work in absolute time
 * (no window, or only a rate): such results give throughput but not units per joule.
 */
export function windowFromAdapter(r: ThroughputResult, gpus: number): MeasuredWindow | null {
  if (!r.window || r.count === null) return null;
  const seconds = r.window.end - r.window.start;
  if (!(seconds > 0)) return null;
  const g = Math.max(1, gpus);
  return { start: r.window.start, end: r.window.end, seconds, units: r.count, steps: 0, rate: r.rate, rate_per_gpu: r.rate / g, gpus: g, unit_name: r.units };
}
