// Simulated GPU presets. Limits, clocks and memory are the real cards' figures (nvidia-smi / amd-smi);
// the power and performance coefficients are fitted so the H100 reproduces the published per-cap throughput
// (DOMAIN.md) and the others behave plausibly relative to it. Every name says "(simulated)".

export interface GpuPreset {
  id: string;
  /** Device name as a driver would report it, already labelled as simulated. */
  name: string;
  /** Vendor of the card the preset imitates; the backend itself reports vendor 'sim'. */
  imitates: 'NVIDIA' | 'AMD';
  limits: { min_w: number; max_w: number; default_w: number };
  /**
   * Limits below this are accepted but not enforced: power stays at this floor (the MI300X case in the
   * source paper). null where every accepted limit is enforced.
   */
  enforce_floor_w: number | null;
  idle_w: number;
  /** Power at the lowest clock under full load (leakage, memory, fans' share); the dynamic part comes on top. */
  static_w: number;
  /** Dynamic power relative to the H100 for the same workload at maximum clock. */
  dynamic_scale: number;
  /** Voltage floor as a fraction of the maximum-clock voltage: below it, power falls only linearly with clock. */
  voltage_floor: number;
  /** Dynamic power ~ f * V^exp with V ~ f above the floor; fitted, ~2-3 on real parts. */
  voltage_exponent: number;
  sm_clock_mhz: { idle: number; min: number; max: number };
  mem_clock_mhz: number;
  memory_mb: number;
  /** Compute per clock relative to the H100 (tensor-core throughput the workloads see). */
  compute_scale: number;
  mem_bandwidth_tbs: number;
  /**
   * First-order temperature (thermal.ts): steady at ambient_c + c_per_w * P, approached with time constant tau_s.
   */
  thermal: { ambient_c: number; c_per_w: number; tau_s: number; slowdown_c: number };
}

/**
 * Die time constant of the SXM5 (GH100) cards. Measured on a real H200 (bench/results/h200-adaptive-2026-12-03.md):
 * after 585-613 W loads the adaptive cool-down reached the 5 °C / 20 W band of the idle baseline in 2-4 s (+3-4 °C
 * at the first checks). With tau 1 s the model's ~35 °C load-to-idle gap falls under 5 °C in 2 s (600 W) to 3 s
 * (700 W); the real card's slow heat-sink tail of ~3 °C is left out. Shared with the H100 SXM: same die, module
 * and cooling class, and its former 60 s had no measurement behind it.
 */
const SXM5_DIE_TAU_S = 1;

/** The H100's HBM3 bandwidth: workload coefficients are stated relative to it. */
export const REFERENCE_BANDWIDTH_TBS = 3.35;

const PRESETS: readonly GpuPreset[] = [
  {
    id: 'h100-sxm',
    name: 'NVIDIA H100 80GB HBM3 (simulated)',
    imitates: 'NVIDIA',
    limits: { min_w: 200, max_w: 700, default_w: 700 },
    enforce_floor_w: null,
    idle_w: 70,
    static_w: 100,
    dynamic_scale: 1,
    voltage_floor: 0.78,
    voltage_exponent: 2.5,
    sm_clock_mhz: { idle: 345, min: 345, max: 1980 },
    mem_clock_mhz: 2619,
    memory_mb: 81559,
    compute_scale: 1,
    mem_bandwidth_tbs: REFERENCE_BANDWIDTH_TBS,
    thermal: { ambient_c: 30, c_per_w: 0.07, tau_s: SXM5_DIE_TAU_S, slowdown_c: 87 },
  },
  {
    // Same compute die as the H100 with faster, larger HBM3e: less memory-bound, so throughput keeps rising at
    // high power (flatter efficiency curve, peak a little higher); the larger memory raises the static power.
    id: 'h200',
    name: 'NVIDIA H200 (simulated)',
    imitates: 'NVIDIA',
    limits: { min_w: 200, max_w: 700, default_w: 700 },
    enforce_floor_w: null,
    idle_w: 80,
    static_w: 120,
    dynamic_scale: 1,
    voltage_floor: 0.8,
    voltage_exponent: 2.6,
    sm_clock_mhz: { idle: 345, min: 345, max: 1980 },
    mem_clock_mhz: 3201,
    memory_mb: 143771,
    compute_scale: 1,
    mem_bandwidth_tbs: 4.8,
    thermal: { ambient_c: 30, c_per_w: 0.068, tau_s: SXM5_DIE_TAU_S, slowdown_c: 87 },
  },
  {
    // High static power makes its efficiency curve flatter but lower; limits under 400 W are not enforced.
    id: 'mi300x',
    name: 'AMD Instinct MI300X (simulated)',
    imitates: 'AMD',
    limits: { min_w: 200, max_w: 750, default_w: 750 },
    enforce_floor_w: 400,
    idle_w: 140,
    static_w: 190,
    dynamic_scale: 1.15,
    voltage_floor: 0.8,
    voltage_exponent: 2.4,
    sm_clock_mhz: { idle: 132, min: 500, max: 2100 },
    mem_clock_mhz: 1300,
    memory_mb: 196592,
    compute_scale: 1,
    mem_bandwidth_tbs: 5.3,
    thermal: { ambient_c: 30, c_per_w: 0.065, tau_s: 80, slowdown_c: 95 },
  },
  {
    id: 'a100-sxm',
    name: 'NVIDIA A100-SXM4-80GB (simulated)',
    imitates: 'NVIDIA',
    limits: { min_w: 100, max_w: 400, default_w: 400 },
    enforce_floor_w: null,
    idle_w: 55,
    static_w: 70,
    dynamic_scale: 0.55,
    voltage_floor: 0.75,
    voltage_exponent: 2.5,
    sm_clock_mhz: { idle: 210, min: 210, max: 1410 },
    mem_clock_mhz: 1593,
    memory_mb: 81920,
    compute_scale: 0.4,
    mem_bandwidth_tbs: 2.04,
    thermal: { ambient_c: 30, c_per_w: 0.11, tau_s: 50, slowdown_c: 87 },
  },
  {
    // Workstation card: default limit below the maximum, so "max" and "default" differ as on the real board.
    id: 'rtx-4090',
    name: 'NVIDIA GeForce RTX 4090 (simulated)',
    imitates: 'NVIDIA',
    limits: { min_w: 150, max_w: 600, default_w: 450 },
    enforce_floor_w: null,
    idle_w: 25,
    static_w: 45,
    dynamic_scale: 0.7,
    voltage_floor: 0.78,
    voltage_exponent: 2.5,
    sm_clock_mhz: { idle: 210, min: 210, max: 2520 },
    mem_clock_mhz: 10501,
    memory_mb: 24564,
    compute_scale: 0.3,
    mem_bandwidth_tbs: 1.01,
    thermal: { ambient_c: 28, c_per_w: 0.1, tau_s: 40, slowdown_c: 84 },
  },
];

export const PRESET_IDS: readonly string[] = PRESETS.map((p) => p.id);

export function findPreset(id: string): GpuPreset | undefined {
  return PRESETS.find((p) => p.id === id);
}
