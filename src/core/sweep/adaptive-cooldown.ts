// Adaptive cool-down (plan `adaptive.cooldown`): the next run starts once the devices have settled back to where
// the sweep began (or stopped changing), never later than the plan's cooldown_s.
import { linearFit } from '../analysis/stats';

export interface CooldownRule {
  temp_band_c: number;
  power_band_w: number;
  flat_c_per_min: number;
}

/** One device's reading while cooling. */
export interface CoolReading {
  t: number;
  temp_c: number | null;
  power_w: number | null;
}

export interface Baseline {
  temp_c: number | null;
  power_w: number | null;
}

export interface CooldownVerdict {
  settled: boolean;
  /** 'baseline': within the bands; 'flat': no longer changing; 'bound': the plan's cool-down is over; null: waiting. */
  how: 'baseline' | 'flat' | 'bound' | null;
  reason: string;
}

/** The slope test looks back this far; fewer than FLAT_MIN_POINTS readings in it cannot show a flat line. */
const FLAT_LOOKBACK_S = 20;
const FLAT_MIN_POINTS = 5;

/** Baseline of one device: the median of its pre-sweep idle readings. */
export function baselineOf(readings: readonly CoolReading[]): Baseline {
  const med = (xs: number[]) => {
    if (xs.length === 0) return null;
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  return {
    temp_c: med(readings.flatMap((r) => (r.temp_c !== null && Number.isFinite(r.temp_c) ? [r.temp_c] : []))),
    power_w: med(readings.flatMap((r) => (r.power_w !== null && Number.isFinite(r.power_w) ? [r.power_w] : []))),
  };
}

function flat(readings: readonly CoolReading[], now: number, rule: CooldownRule): boolean {
  const recent = readings.filter((r) => r.t >= now - FLAT_LOOKBACK_S && r.temp_c !== null);
  if (recent.length < FLAT_MIN_POINTS || recent[recent.length - 1]!.t - recent[0]!.t < FLAT_LOOKBACK_S / 2) return false;
  const fit = linearFit(
    recent.map((r) => r.t),
    recent.map((r) => r.temp_c!),
  );
  return fit !== null && Math.abs(fit.slope) * 60 <= rule.flat_c_per_min;
}

/**
 * Whether one device has settled, `waited_s` into a cool-down bounded by `max_s`. Temperature and power within
 * their bands of the baseline, or temperature flat (slope over the last 20 s) with power within its band (a card
 * that settles warmer than the sweep began, in a warmer room); a baseline field that was not read is not judged.
 */
export function judgeCooldown(readings: readonly CoolReading[], baseline: Baseline, rule: CooldownRule, waited_s: number, max_s: number): CooldownVerdict {
  const last = readings[readings.length - 1];
  if (waited_s >= max_s - 1e-9) return { settled: true, how: 'bound', reason: `the plan's cool-down of ${max_s} s is over` };
  if (!last) return { settled: false, how: null, reason: 'no reading yet' };
  const dT = last.temp_c !== null && baseline.temp_c !== null ? last.temp_c - baseline.temp_c : null;
  const dP = last.power_w !== null && baseline.power_w !== null ? last.power_w - baseline.power_w : null;
  const powerIn = dP === null || Math.abs(dP) <= rule.power_band_w;
  const tempIn = dT === null || Math.abs(dT) <= rule.temp_band_c;
  const fmt = (x: number | null, unit: string) => (x === null ? 'not read' : `${x >= 0 ? '+' : ''}${x.toFixed(1)} ${unit}`);
  const state = `temperature ${fmt(dT, '°C')}, power ${fmt(dP, 'W')} from the pre-sweep baseline`;
  if (powerIn && tempIn) return { settled: true, how: 'baseline', reason: `settled after ${waited_s.toFixed(0)} s: ${state}` };
  if (powerIn && flat(readings, last.t, rule)) return { settled: true, how: 'flat', reason: `settled after ${waited_s.toFixed(0)} s: temperature flat (under ${rule.flat_c_per_min} °C/min), ${state}` };
  return { settled: false, how: null, reason: `cooling: ${state}` };
}
