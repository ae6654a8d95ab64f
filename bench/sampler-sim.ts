import { join } from 'node:path';
import { Sampler } from '../src/main/lab/gpu/sampler';
import { BufferedSampler } from '../src/main/lab/gpu/buffered-sampler';
import { SimBackend } from '../src/main/lab/gpu/sim';
import { SimClock } from '../src/main/lab/gpu/sim-clock';
import { cpuSeconds, type BenchResult } from './harness';

/** Wall seconds each sampler runs: SAMPLER_SIM_SECONDS for a quick look, default 10. */
const SECONDS = Number(process.env.SAMPLER_SIM_SECONDS ?? 10);

/**
 * Sampler timing on 8 simulated GPUs at 100 ms: jitter of the polled sampler's tick times (p50/p99 lateness) against
 * the interval itself as the baseline, and CPU seconds per 1,000 device samples of the polled sampler (one wake per
 * tick) and of the buffered one (one wake a second, the simulated device's sample buffer), measured one after the
 * other in the same run.
 */
export async function run(dir: string): Promise<BenchResult> {
  const presets = Array(8).fill('h100-sxm');
  const indexes = [0, 1, 2, 3, 4, 5, 6, 7];
  const polledBackend = new SimBackend({ stateDir: join(dir, 'sim'), presets, clock: SimClock.realTime() });
  let count = 0;
  const sampler = new Sampler({ backend: polledBackend, indexes, intervalMs: 100, onSamples: (s) => (count += s.length) });
  const { cpu_s } = await cpuSeconds(async () => {
    sampler.start();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    sampler.stop();
  });
  await polledBackend.close();

  const bufferedBackend = new SimBackend({ stateDir: join(dir, 'sim-buffered'), presets, clock: SimClock.realTime() });
  let buffered = 0;
  const batch = new BufferedSampler({ backend: bufferedBackend, indexes, intervalMs: 100, onSamples: (s) => (buffered += s.length) });
  const b = await cpuSeconds(async () => {
    batch.start();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    batch.stop();
  });
  await bufferedBackend.close();

  const late = [...sampler.stats.lateMs].sort((a, b) => a - b);
  const pct = (p: number) => late[Math.min(late.length - 1, Math.floor(p * late.length))] ?? NaN;
  return {
    name: 'sampler: 8 simulated GPUs at 100 ms',
    ratio_label: 'p99 tick lateness / sampling interval',
    ratio: pct(0.99) / 100,
    target: 0.2,
    better: 'lower',
    details: {
      seconds: SECONDS,
      ticks: sampler.stats.ticks,
      skipped: sampler.stats.skipped,
      device_samples: count,
      p50_late_ms: pct(0.5),
      p99_late_ms: pct(0.99),
      cpu_s_per_1000_samples: (cpu_s / count) * 1000,
      buffered_device_samples: buffered,
      buffered_wakes: batch.stats.wakes,
      buffered_cpu_s_per_1000_samples: (b.cpu_s / buffered) * 1000,
      buffered_vs_polled_cpu: b.cpu_s / buffered / (cpu_s / count),
    },
  };
}
