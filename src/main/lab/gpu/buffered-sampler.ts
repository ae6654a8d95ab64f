import type { Sample } from '../../../shared/device';
import type { GpuBackend } from './backend';
import { Sampler, type SamplerOptions } from './sampler';

/** What the sweep needs of a sampler, polled or buffered. */
export interface DeviceSampler {
  /** Readings arrive in batches (about once a second) rather than one per interval. */
  readonly buffered: boolean;
  start(): void;
  stop(): void;
  /** Delivers what has been read but not yet delivered (buffered sampling): call before using a window's samples. */
  drain(): void;
  /**
   * Runs `fn` on each of the sampler's own wake-ups (at most a second apart), so that periodic chores (the sweep's
   * watchdog) cost no wake-up of their own; returns the unsubscribe. null for the polled sampler, whose ticks follow
   * the sampling interval instead.
   */
  onWake(fn: () => void): (() => void) | null;
}

type DrainingBackend = GpuBackend & { drainSamples: NonNullable<GpuBackend['drainSamples']> };

export interface BufferedSamplerOptions {
  backend: DrainingBackend;
  indexes: number[];
  intervalMs: number;
  /** Wall-clock period between wake-ups, ms (the driver buffer must outlast it: ~2.4 s on an H200). */
  batchMs?: number;
  onSamples: (samples: Sample[]) => void;
  onError?: (error: Error) => void;
}

/**
 * One wake-up per batch for all GPUs: each wake takes the readings the driver buffered since the last one. Waking a
 * process costs more CPU than the sensor reads themselves (bench/results/h200-sensors.md), so this is what makes
 * 100 ms sampling cheap; readings keep the driver's own timestamps, so a late wake delays them but does not move them.
 */
export class BufferedSampler implements DeviceSampler {
  readonly buffered = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly chores = new Set<() => void>();
  readonly stats = { wakes: 0, samples: 0 };

  constructor(private readonly opts: BufferedSamplerOptions) {}

  start(): void {
    if (this.timer) return;
    this.drain();
    this.timer = setInterval(() => {
      this.drain();
      for (const fn of this.chores) fn();
    }, this.opts.batchMs ?? 1000);
  }

  onWake(fn: () => void): () => void {
    this.chores.add(fn);
    return () => this.chores.delete(fn);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.drain();
  }

  drain(): void {
    this.stats.wakes++;
    try {
      const samples = this.opts.backend.drainSamples(this.opts.indexes, this.opts.intervalMs);
      this.stats.samples += samples.length;
      if (samples.length) this.opts.onSamples(samples);
    } catch (e) {
      this.opts.onError?.(e as Error);
    }
  }
}

/**
 * Wake period of the buffered sampler on simulated devices, wall ms: the simulated device re-reads its workloads when
 * drained, so it is drained often; its readings keep their simulated times however late a wake is.
 */
export const SIM_WAKE_MS = 50;

/**
 * The sampler a plan's `sample_mode` asks for: buffered where the backend keeps a sample buffer (`auto`, `buffered`)
 * and runs in real time or is simulated (whose buffer is on its own clock), polled otherwise.
 */
export function createSampler(opts: SamplerOptions & { mode: 'auto' | 'buffered' | 'poll' }): DeviceSampler {
  const { backend } = opts;
  if (opts.mode !== 'poll' && hasDrain(backend) && ((opts.timeScale ?? 1) === 1 || backend.simulated)) {
    const batchMs = backend.simulated ? SIM_WAKE_MS : undefined;
    return new BufferedSampler({ backend, indexes: opts.indexes, intervalMs: opts.intervalMs, batchMs, onSamples: opts.onSamples, onError: opts.onError });
  }
  const sampler = new Sampler(opts);
  return { buffered: false, start: () => sampler.start(), stop: () => sampler.stop(), drain: () => {}, onWake: () => null };
}

function hasDrain(b: GpuBackend): b is DrainingBackend {
  return typeof b.drainSamples === 'function';
}
