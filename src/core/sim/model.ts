// The simulated GPU's operating point: given what runs on it, its cap and its temperature, what it draws, how
// fast it clocks and how much work it does. Pure and deterministic; noise is added by the callers (sensor noise
// in the backend, step jitter in the workload process) from seeded hashes.
import { type GpuPreset, REFERENCE_BANDWIDTH_TBS } from './presets';
import { batchEfficiency, memoryNeededMb, type ResolvedParams, type WorkloadModel } from './workloads';
import { solveClock } from './power';
import { thermalClockLimit } from './thermal';

/** A capped card settles this fraction below its limit (the controller's margin). */
const CAP_MARGIN = 0.005;
/**
 * Activity while the process starts up, as on a real GPU: context creation lifts it off idle at once, then model
 * load and compilation (autotuning kernels, CUDA graphs) raise it towards INIT_PEAK_ACTIVITY by the first step.
 */
const INIT_ACTIVITY = 0.04;
const INIT_PEAK_ACTIVITY = 0.3;
/** Share of the init activity that shows as utilisation: start-up kernels are short and sparse. */
const INIT_UTIL_SHARE = 0.5;
/** Activity at the first step; it ramps to 1 with the workload's ramp_tau_s. */
const RAMP_START_ACTIVITY = 0.55;

export interface SimLoad {
  workload: WorkloadModel;
  params: ResolvedParams;
  /** Simulated seconds since the workload process started. */
  elapsed_s: number;
}

export interface SimInput {
  preset: GpuPreset;
  /** null: nothing runs on the device. */
  load: SimLoad | null;
  /** The limit the driver holds. */
  cap_w: number;
  temp_c: number;
}

export interface OperatingPoint {
  power_w: number;
  sm_clock_mhz: number;
  mem_clock_mhz: number;
  util_gpu: number;
  util_mem: number;
  mem_used_mb: number;
  /** The limit the hardware actually holds (differs from cap_w only below a preset's enforce floor). */
  enforced_cap_w: number;
  cap_binding: boolean;
  thermal_slowdown: boolean;
  /** Still starting up: no steps yet. */
  initializing: boolean;
  /** Units/s this GPU delivers now (0 while initializing or idle). */
  throughput: number;
  units_per_step: number;
  /** Simulated seconds one step takes now; null while initializing or idle. */
  step_s: number | null;
}

/** Activity in [0, 1]: rising from near idle during init, then a warm-up ramp from RAMP_START_ACTIVITY towards 1. */
function loadActivity(workload: WorkloadModel, elapsed_s: number): number {
  if (elapsed_s < workload.init_s) return INIT_ACTIVITY + (INIT_PEAK_ACTIVITY - INIT_ACTIVITY) * (elapsed_s / workload.init_s) ** 2;
  const ramp = Math.exp(-(elapsed_s - workload.init_s) / workload.ramp_tau_s);
  return 1 - (1 - RAMP_START_ACTIVITY) * ramp;
}

/** Seconds after start when the warm-up ramp is within 1 % of steady state. */
export function warmupEndS(workload: WorkloadModel): number {
  return workload.init_s + workload.ramp_tau_s * Math.log((1 - RAMP_START_ACTIVITY) / 0.01);
}

function enforcedCapW(preset: GpuPreset, cap_w: number): number {
  return preset.enforce_floor_w === null ? cap_w : Math.max(cap_w, preset.enforce_floor_w);
}

export function operatingPoint(input: SimInput): OperatingPoint {
  const { preset, load, cap_w, temp_c } = input;
  const enforced = enforcedCapW(preset, cap_w);
  const fMin = preset.sm_clock_mhz.min / preset.sm_clock_mhz.max;
  const thermalLimit = Math.max(fMin, thermalClockLimit(preset, temp_c));
  if (!load) {
    return {
      power_w: preset.idle_w,
      sm_clock_mhz: preset.sm_clock_mhz.idle,
      mem_clock_mhz: preset.mem_clock_mhz,
      util_gpu: 0,
      util_mem: 0,
      mem_used_mb: 0,
      enforced_cap_w: enforced,
      cap_binding: false,
      thermal_slowdown: false,
      initializing: false,
      throughput: 0,
      units_per_step: 0,
      step_s: null,
    };
  }
  const { workload, params, elapsed_s } = load;
  const activity = loadActivity(workload, Math.max(0, elapsed_s));
  const initializing = elapsed_s < workload.init_s;
  const draw = { preset, dynamic_w: workload.dynamic_w * preset.dynamic_scale, activity };
  const clock = solveClock(draw, enforced * (1 - CAP_MARGIN), fMin, thermalLimit);

  // Step time = compute part (scales with clock and compute per clock) + memory part (scales with bandwidth).
  const computeTime = workload.compute_fraction / (clock.f * preset.compute_scale);
  const memoryTime = (1 - workload.compute_fraction) * (REFERENCE_BANDWIDTH_TBS / preset.mem_bandwidth_tbs);
  const fullRate = (workload.throughput_ref * batchEfficiency(workload, params.batch_size)) / (computeTime + memoryTime);
  const throughput = initializing ? 0 : fullRate * activity;
  const unitsPerStep = params.batch_size * params.item_units;
  const memNeeded = memoryNeededMb(workload, params);
  return {
    power_w: clock.power_w,
    sm_clock_mhz: clock.f * preset.sm_clock_mhz.max,
    mem_clock_mhz: preset.mem_clock_mhz,
    util_gpu: Math.round(activity * 99 * (initializing ? INIT_UTIL_SHARE : 1)),
    util_mem: Math.round(activity * 100 * (memoryTime / (computeTime + memoryTime))),
    mem_used_mb: initializing ? Math.round((memNeeded * elapsed_s) / workload.init_s) : memNeeded,
    enforced_cap_w: enforced,
    // The cap binds when it, not the thermal limit, holds the clock down.
    cap_binding: clock.limited,
    thermal_slowdown: thermalLimit < 1 && !clock.limited,
    initializing,
    throughput,
    units_per_step: unitsPerStep,
    step_s: throughput > 0 ? unitsPerStep / throughput : null,
  };
}
