import { join } from 'node:path';
import { Sampler } from '../src/main/lab/gpu/sampler';
import { SimBackend } from '../src/main/lab/gpu/sim';
import { SimClock } from '../src/main/lab/gpu/sim-clock';
import { cpuSeconds, type BenchResult } from './harness';

/**
 * Sampler timing on 8 simulated GPUs at 100 ms for 10 s of wall time: jitter of the tick times (p50/p99 lateness)
 * against the interval itself as the baseline, and CPU seconds per 1,000 device samples.
 */
export async function run(dir: string): Promise<BenchResult> {
  const backend = new SimBackend({ stateDir: join(dir, 'sim'), presets: Array(8).fill('h100-sxm'), clock: SimClock.realTime() });
  let count = 0;
  const sampler = new Sampler({ backend, indexes: [0, 1, 2, 3, 4, 5, 6, 7], intervalMs: 100, onSamples: (s) => (count += s.length) });
  const { cpu_s } = await cpuSeconds(async () => {
    sampler.start();
    await new Promise((r) => setTimeout(r, 10_000));
    sampler.stop();
  });
  await backend.close();
  const late = [...sampler.stats.lateMs].sort((a, b) => a - b);
  const pct = (p: number) => late[Math.min(late.length - 1, Math.floor(p * late.length))] ?? NaN;
  return {
    name: 'sampler: 8 simulated GPUs at 100 ms',
    ratio_label: 'p99 tick lateness / sampling interval',
    ratio: pct(0.99) / 100,
    target: 0.2,
    better: 'lower',
    details: { ticks: sampler.stats.ticks, skipped: sampler.stats.skipped, device_samples: count, p50_late_ms: pct(0.5), p99_late_ms: pct(0.99), cpu_s_per_1000_samples: (cpu_s / count) * 1000 },
  };
}
