import type { Sample } from '../../../shared/device';
import type { GpuBackend } from './backend';

export interface SamplerOptions {
  backend: GpuBackend;
  indexes: number[];
  /** Interval in the backend's time (simulated time for the simulated backend). */
  intervalMs: number;
  /** Backend seconds per wall second: the simulated backend's speed-up, 1 for real GPUs. */
  timeScale?: number;
  onSamples: (samples: Sample[]) => void;
  onError?: (error: Error) => void;
}

/**
 * One sampler for all devices. Ticks are scheduled against a monotonic clock with drift correction, so the
 * interval does not stretch by the time a read takes; a tick that falls behind is skipped rather than bunched.
 */
export class Sampler {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private next = 0;
  private busy = false;
  readonly stats = { ticks: 0, skipped: 0, lateMs: [] as number[] };

  constructor(private readonly opts: SamplerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.next = performance.now();
    void this.tick();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private get realIntervalMs(): number {
    return this.opts.intervalMs / (this.opts.timeScale ?? 1);
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    const now = performance.now();
    if (this.stats.lateMs.length < 100_000) this.stats.lateMs.push(now - this.next);
    if (!this.busy) {
      this.busy = true;
      try {
        const samples = await this.opts.backend.sample(this.opts.indexes);
        if (samples.length) this.opts.onSamples(samples);
      } catch (e) {
        this.opts.onError?.(e as Error);
      } finally {
        this.busy = false;
      }
      this.stats.ticks++;
    } else {
      this.stats.skipped++;
    }
    this.next += this.realIntervalMs;
    const behind = performance.now() - this.next;
    if (behind > this.realIntervalMs) {
      const missed = Math.floor(behind / this.realIntervalMs);
      this.stats.skipped += missed;
      this.next += missed * this.realIntervalMs;
    }
    if (this.running) this.timer = setTimeout(() => void this.tick(), Math.max(0, this.next - performance.now()));
  }
}
