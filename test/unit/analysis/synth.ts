// Synthetic series for the analysis tests (known answers).
import type { AnalysisRunInput, SeriesSampleInput } from '../../../src/shared/analysis';

/** Samples of power(t) from t0 to t1 (inclusive) every dt, with optional extra fields per sample. */
export function powerSeries(
  power: (t: number) => number,
  t0: number,
  t1: number,
  dt: number,
  kind: 'instant' | 'average' | 'counter' = 'instant',
  extra: (t: number) => Partial<SeriesSampleInput> = () => ({}),
): SeriesSampleInput[] {
  const out: SeriesSampleInput[] = [];
  const n = Math.round((t1 - t0) / dt);
  for (let i = 0; i <= n; i++) {
    const t = t0 + i * dt;
    out.push({ t, power_w: power(t), power_kind: kind, ...extra(t) });
  }
  return out;
}

/** Counter-only samples: energy_mj = 1000 * energy(t) every dt (power_w null). */
export function counterSeries(energyJ: (t: number) => number, t0: number, t1: number, dt: number, offsetMj = 0): SeriesSampleInput[] {
  const out: SeriesSampleInput[] = [];
  const n = Math.round((t1 - t0) / dt);
  for (let i = 0; i <= n; i++) {
    const t = t0 + i * dt;
    out.push({ t, power_w: null, power_kind: 'instant', energy_mj: offsetMj + 1000 * energyJ(t) });
  }
  return out;
}

/** The paper's H100 throughput per GPU at caps 200..700 W (DOMAIN.md, arXiv 2603.16164). */
export const H100_CAPS = [200, 300, 400, 500, 600, 700];
export const H100_VIT = [116.4, 214.9, 259.0, 280.05, 297.79, 305.97];
export const H100_LLAMA = [9699.3, 17982.3, 24853.4, 27705.3, 29250.0, 30271.0];

export interface PaperSweepOptions {
  workload: string;
  throughput: readonly number[];
  gpus?: number;
  /** Multiplicative throughput factors, one per repetition (mean 1). */
  factors?: readonly number[];
  /** Mean GPU power as a fraction of the cap (assumption: 0.97). */
  powerFraction?: number;
  /** Per-cap override of the measured GPU power (e.g. a cap that is not enforced). */
  powerAt?: (cap: number) => number;
  device_model?: string;
  units?: string;
  windowS?: number;
  warmupS?: number;
}

/**
 * A sweep from published per-cap throughput: each run warms up for warmupS (power ramps from 60 % to the steady
 * value, throughput from 50 %), then holds constant power = powerFraction * cap over a measurement window of
 * windowS seconds, sampled at 10 Hz (instant power). units_in_window = throughput * factor * window * gpus.
 */
export function paperSweep(o: PaperSweepOptions): AnalysisRunInput[] {
  const gpus = o.gpus ?? 1;
  const factors = o.factors ?? [1];
  const frac = o.powerFraction ?? 0.97;
  const win = o.windowS ?? 60;
  const warm = o.warmupS ?? 20;
  const runs: AnalysisRunInput[] = [];
  let id = 1;
  let t0 = 1_000_000;
  H100_CAPS.forEach((cap, ci) => {
    factors.forEach((f, ri) => {
      const p = o.powerAt ? o.powerAt(cap) : frac * cap;
      const rate = o.throughput[ci]! * f;
      const start = t0 + warm;
      const end = start + win;
      const pw = (t: number) => (t < start ? p * (0.6 + (0.4 * (t - t0)) / warm) : p);
      const steps: { t: number; units: number; dt: number }[] = [];
      for (let t = t0 + 1; t <= end + 1e-9; t += 1) steps.push({ t, units: gpus * rate * (t <= start ? 0.5 + (0.5 * (t - t0)) / warm : 1), dt: 1 });
      runs.push({
        run_id: id++,
        workload: o.workload,
        device_model: o.device_model ?? 'H100 SXM',
        cap_w: cap,
        repetition: ri + 1,
        started_at: t0,
        window: { start, end },
        units: o.units ?? 'images',
        units_in_window: gpus * rate * win,
        steps,
        gpus,
        devices: Array.from({ length: gpus }, (_, g) => ({
          device_id: `gpu${g}`,
          samples: powerSeries(pw, t0, end, 0.1, 'instant', () => ({ limit_w: cap, sm_clock_mhz: 1000 + cap, mem_clock_mhz: 2619, temp_c: 40 + cap / 20, throttle_reasons: cap < 600 ? 4 : 0 })),
        })),
        enforced_limit_w: cap,
      });
      t0 = end + 30;
    });
  });
  return runs;
}

/** One run: steps every 0.2 s from t0, throughput ramping to `rate` with time constant tau; power likewise. */
export function rampRun(id: number, cap: number, rate: number, tau: number, t0: number, warm = 5, win = 10): AnalysisRunInput {
  const start = t0 + warm;
  const end = start + win;
  const ramp = (t: number) => 1 - 0.6 * Math.exp(-(t - t0) / tau);
  const steps: { t: number; units: number; dt: number }[] = [];
  let inWin = 0;
  for (let t = t0 + 0.2; t <= end + 1e-9; t += 0.2) {
    const u = rate * ramp(t) * 0.2;
    steps.push({ t, units: u, dt: 0.2 });
    if (t > start + 1e-9) inWin += u;
  }
  const p = 0.95 * cap;
  return {
    run_id: id,
    workload: 'vit_l_16',
    device_model: 'H100 SXM (simulated)',
    cap_w: cap,
    started_at: t0 - 4,
    window: { start, end },
    units: 'images',
    units_in_window: inWin,
    steps,
    gpus: 1,
    devices: [{ device_id: 'gpu0', samples: powerSeries((t) => (t < t0 ? 90 : p * ramp(t)), t0 - 4, end, 0.1, 'instant', () => ({ limit_w: cap })) }],
    enforced_limit_w: cap,
  };
}

/** Issue #25's short sweep: 300/500/700 W, 5 s warm-up, 10 s window; 500 and 700 W still ramp in the window. */
export const shortSweep = (): AnalysisRunInput[] => [rampRun(1, 300, 192.2, 0.3, 1000), rampRun(2, 500, 240, 6, 2000), rampRun(3, 700, 253.6, 6, 3000)];
