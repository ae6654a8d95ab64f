// First-order thermal model: the die relaxes towards ambient + R * P with time constant tau.
import type { GpuPreset } from './presets';

export function steadyTempC(preset: GpuPreset, power_w: number): number {
  return preset.thermal.ambient_c + preset.thermal.c_per_w * power_w;
}

/** Temperature after dt seconds at constant power (exact solution of the first-order model). */
export function advanceTempC(preset: GpuPreset, temp_c: number, power_w: number, dt_s: number): number {
  const target = steadyTempC(preset, power_w);
  return target + (temp_c - target) * Math.exp(-dt_s / preset.thermal.tau_s);
}

/** Highest normalised clock the firmware allows at this temperature: 3 % less per degree above slowdown. */
export function thermalClockLimit(preset: GpuPreset, temp_c: number): number {
  const over = temp_c - preset.thermal.slowdown_c;
  return over > 0 ? Math.max(0, 1 - 0.03 * over) : 1;
}
