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
  readonly stats = { wakes: 0, samples: 0 };

  constructor(private readonly opts: BufferedSamplerOptions) {}

  start(): void {
    if (this.timer) return;
    this.drain();
    this.timer = setInterval(() => this.drain(), this.opts.batchMs ?? 1000);
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
 * The sampler a plan's `sample_mode` asks for: buffered where the backend keeps a sample buffer and runs in real
 * time (`auto`, `buffered`), polled otherwise.
 */
export function createSampler(opts: SamplerOptions & { mode: 'auto' | 'buffered' | 'poll' }): DeviceSampler {
  const { backend } = opts;
  if (opts.mode !== 'poll' && hasDrain(backend) && (opts.timeScale ?? 1) === 1) {
    return new BufferedSampler({ backend, indexes: opts.indexes, intervalMs: opts.intervalMs, onSamples: opts.onSamples, onError: opts.onError });
  }
  const sampler = new Sampler(opts);
  return { buffered: false, start: () => sampler.start(), stop: () => sampler.stop(), drain: () => {} };
}

function hasDrain(b: GpuBackend): b is DrainingBackend {
  return typeof b.drainSamples === 'function';
}
