// Power-clock model of one GPU under load. Dynamic power ~ f * V^e where the voltage follows the clock down to
// a floor; below the floor only the frequency term is left, so power falls slowly there and a low cap costs
// much clock (the steep throughput drop at 200 W on the H100). Clocks are normalised: f = 1 at the maximum.
import type { GpuPreset } from './presets';

export function dynamicShare(preset: GpuPreset, f: number): number {
  return f * Math.max(preset.voltage_floor, f) ** preset.voltage_exponent;
}

/** What draws power on one device at one moment. activity in [0, 1] scales everything above idle. */
export interface PowerDraw {
  preset: GpuPreset;
  /** Dynamic power at maximum clock and full activity, W. */
  dynamic_w: number;
  activity: number;
}

export function powerAt(d: PowerDraw, f: number): number {
  const { preset } = d;
  return preset.idle_w + d.activity * (preset.static_w - preset.idle_w + d.dynamic_w * dynamicShare(preset, f));
}

export interface ClockSolution {
  f: number;
  power_w: number;
  /** The target held the clock below f_max. */
  limited: boolean;
}

/**
 * Highest clock in [f_min, f_max] whose power stays within target_w (power is increasing in f). When even f_min
 * draws more than the target, the device runs at f_min above the target, as a real card does at an
 * unreachably low cap.
 */
export function solveClock(d: PowerDraw, target_w: number, f_min: number, f_max: number): ClockSolution {
  const top = powerAt(d, f_max);
  if (top <= target_w) return { f: f_max, power_w: top, limited: false };
  if (powerAt(d, f_min) >= target_w) return { f: f_min, power_w: powerAt(d, f_min), limited: true };
  let lo = f_min;
  let hi = f_max;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (powerAt(d, mid) > target_w) hi = mid;
    else lo = mid;
  }
  return { f: lo, power_w: powerAt(d, lo), limited: true };
}
