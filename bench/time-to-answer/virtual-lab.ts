// The simulated GPU of CapLab's sim backend, played in simulated time without processes: the same operating point
// (src/core/sim/model.ts), thermal model, and the same noise as the backend and the workload process (run-to-run
// power spread RUN_POWER_SD, device spread DEVICE_POWER_SD where the cap does not bind, sensor noise of
// 0.5 % + 1 W per 0.1 s tick, 1 % step-time jitter seeded per run). A sweep of hours is played in milliseconds, so
// 20 seeded trials of three protocols on two GPUs fit a bench run. Everything here is simulated, and labelled so.
import { findPreset, type GpuPreset } from '../../src/core/sim/presets';
import { findWorkload, resolveParams, type WorkloadModel } from '../../src/core/sim/workloads';
import { operatingPoint } from '../../src/core/sim/model';
import { advanceTempC, steadyTempC } from '../../src/core/sim/thermal';
import { gaussian } from '../../src/core/sim/random';
import { DEVICE_POWER_SD, SENSOR_PERIOD_S } from '../../src/main/lab/gpu/sim';
import { RUN_POWER_SD } from '../../src/core/analysis/run-spread';
import { AdaptiveWindow, type WindowRule } from '../../src/core/sweep/adaptive-window';

/** Node overhead of the efficiency figure (the seed paper's 100 W, CapLab's default). */
export const OVERHEAD_W = 100;
/** Setting a cap, starting and stopping a process: the orchestrator's per-run allowance (estimatePlanSeconds). */
export const RUN_OVERHEAD_S = 2;

export type WindowSpec = { seconds: number } | { units: number } | { adaptive: WindowRule; max_s: number };
export type WarmupSpec = { seconds: number } | { steps: number };

export interface RunResult {
  cap_w: number;
  throughput: number;
  efficiency: number;
  window_s: number;
  /** Device seconds from the cap change to the process's end. */
  run_s: number;
  /** Of run_s: the model's start-up before its first step, and the warm-up (first step to the window's start). */
  start_s: number;
  warmup_s: number;
  settled: boolean;
}

/** One simulated GPU whose temperature carries over from run to run and through the pauses between them. */
export class VirtualGpu {
  readonly preset: GpuPreset;
  readonly model: WorkloadModel;
  temp_c: number;
  /** Device seconds spent (runs, pauses, cool-downs). */
  clock = 0;
  private readonly deviceSd: number;

  constructor(
    presetId: string,
    workloadId: string,
    /** The trial's seed: run-to-run noise and step jitter differ between trials. */
    private readonly seed: number,
    /** The device's identity: the sim backend's seed, whose draw fixes the part-to-part power offset. */
    deviceSeed = 1,
  ) {
    this.preset = findPreset(presetId)!;
    this.model = findWorkload(workloadId)!;
    this.temp_c = steadyTempC(this.preset, this.preset.idle_w);
    // One device of the sim backend (index 0 of seed deviceSeed): its part-to-part offset is fixed, as on one real card.
    this.deviceSd = DEVICE_POWER_SD * gaussian(deviceSeed, 0, 0, 3);
  }

  /** Noise-free steady efficiency at a cap: the truth the answers are judged against. */
  trueEfficiency(cap_w: number): number {
    const params = resolveParams(this.model, {});
    const op = operatingPoint({ preset: this.preset, load: { workload: this.model, params, elapsed_s: 1e6 }, cap_w, temp_c: steadyTempC(this.preset, cap_w) });
    const power = op.power_w * (1 + (op.cap_binding ? 0 : this.deviceSd));
    return op.throughput / (power + OVERHEAD_W);
  }

  /** Idle for `seconds` (a pause or a cool-down), with sensor readings every tick to judge it by. */
  idle(seconds: number, onReading?: (t: number, temp_c: number, power_w: number) => boolean): number {
    let waited = 0;
    const p = this.preset.idle_w;
    while (waited < seconds - 1e-9) {
      const h = Math.min(SENSOR_PERIOD_S * 10, seconds - waited);
      this.temp_c = advanceTempC(this.preset, this.temp_c, p, h);
      waited += h;
      this.clock += h;
      const tick = Math.floor(this.clock / SENSOR_PERIOD_S);
      if (onReading?.(this.clock, this.temp_c, p + gaussian(this.seed, 7, tick, 0) * (0.005 * p + 1))) break;
    }
    return waited;
  }

  /** One run at a cap: start-up, warm-up, then the window (fixed, a fixed amount of work, or adaptive). */
  run(cap_w: number, runIndex: number, warmup: WarmupSpec, window: WindowSpec): RunResult {
    const params = resolveParams(this.model, {});
    const t0 = this.clock;
    const runSeed = this.seed * 100_003 + runIndex;
    const runNoise = RUN_POWER_SD * gaussian(this.seed, 0, runIndex, 2);
    // Start-up: near-idle activity, no steps (the model's init phase).
    const initOp = operatingPoint({ preset: this.preset, load: { workload: this.model, params, elapsed_s: this.model.init_s / 2 }, cap_w, temp_c: this.temp_c });
    this.temp_c = advanceTempC(this.preset, this.temp_c, initOp.power_w, this.model.init_s);
    let e = this.model.init_s;
    let steps = 0;
    let firstStep: number | null = null;
    let warmEnd: number | null = null;
    let units = 0;
    let energy = 0;
    let sensorNext = 0;
    const adaptive = 'adaptive' in window ? new AdaptiveWindow(window.adaptive, 0) : null;
    let settled = false;
    for (let n = 1; ; n++) {
      const op = operatingPoint({ preset: this.preset, load: { workload: this.model, params, elapsed_s: e }, cap_w, temp_c: this.temp_c });
      const dt = (op.step_s ?? 1) * Math.max(0.5, 1 + 0.01 * gaussian(runSeed, n));
      const power = op.power_w * (1 + runNoise + (op.cap_binding ? 0 : this.deviceSd));
      this.temp_c = advanceTempC(this.preset, this.temp_c, power, dt);
      const stepStart = e;
      e += dt;
      steps++;
      firstStep ??= stepStart;
      if (warmEnd === null) {
        const done = 'steps' in warmup ? steps >= warmup.steps : e - firstStep >= warmup.seconds;
        if (done) {
          warmEnd = e;
          sensorNext = e;
        }
        continue;
      }
      const w = e - warmEnd;
      units += op.units_per_step;
      energy += power * dt;
      if (adaptive) {
        for (; sensorNext <= e; sensorNext += SENSOR_PERIOD_S) {
          const tick = Math.floor((t0 + sensorNext) / SENSOR_PERIOD_S);
          adaptive.sample('gpu', sensorNext - warmEnd, power + gaussian(this.seed * 31 + runIndex, 0, tick, 0) * (0.005 * power + 1));
        }
        adaptive.step(w, op.units_per_step, dt);
        if (adaptive.judge(w).stop) {
          settled = true;
          break;
        }
      }
      const limit = 'seconds' in window ? window.seconds : 'units' in window ? Infinity : window.max_s;
      if (w >= limit - 1e-9 || ('units' in window && units >= window.units)) break;
    }
    const window_s = e - warmEnd!;
    this.clock += e + RUN_OVERHEAD_S;
    const throughput = units / window_s;
    return { cap_w, throughput, efficiency: units / (energy + OVERHEAD_W * window_s), window_s, run_s: this.clock - t0, start_s: firstStep!, warmup_s: warmEnd! - firstStep!, settled };
  }
}
