import type { Span } from '../../../shared/plan';

export interface StepEvent {
  t: number;
  units: number;
  dt: number;
}

/**
 * Follows a run's steps through warm-up and the measurement window. Windows are bounded at step ends, so the
 * units counted are exactly the work done between measure_start and measure_end.
 */
export class RunWindow {
  warmupEnd: number | null = null;
  measureEnd: number | null = null;
  unitsInWindow = 0;
  stepsInWindow = 0;
  private steps = 0;

  constructor(
    private readonly startT: number,
    private readonly warmup: Span,
    private readonly window: Span,
  ) {}

  get phase(): 'warmup' | 'measure' | 'complete' {
    return this.measureEnd !== null ? 'complete' : this.warmupEnd !== null ? 'measure' : 'warmup';
  }

  /** Feeds one step; returns the boundary it crossed, if any. */
  step(s: StepEvent): 'measure-start' | 'measure-end' | null {
    this.steps++;
    if (this.warmupEnd === null) {
      const done = 'seconds' in this.warmup ? s.t - this.startT >= this.warmup.seconds : this.steps >= this.warmup.steps;
      if (done) {
        this.warmupEnd = s.t;
        return 'measure-start';
      }
      return null;
    }
    if (this.measureEnd !== null) return null;
    this.unitsInWindow += s.units;
    this.stepsInWindow++;
    const done = 'seconds' in this.window ? s.t - this.warmupEnd >= this.window.seconds : this.stepsInWindow >= this.window.steps;
    if (done) {
      this.measureEnd = s.t;
      return 'measure-end';
    }
    return null;
  }

  /** Units per second over the window, all GPUs together. */
  rate(): number | null {
    if (this.warmupEnd === null || this.measureEnd === null || this.measureEnd <= this.warmupEnd) return null;
    return this.unitsInWindow / (this.measureEnd - this.warmupEnd);
  }
}
