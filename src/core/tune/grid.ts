// The caps a tuning session profiles: given by the user (FROM:TO:STEP or a list) or a coarse grid over the device.
import { snapCap } from '../analysis/refine';
import type { DeviceLimits } from '../../shared/analysis';

export class CapGridError extends Error {
  override name = 'CapGridError';
}

/** Caps at most this many: each costs two visits of the job's time. */
export const MAX_TUNE_CAPS = 40;

/** `300:700:50` or `300,400,500`. Throws CapGridError naming what is wrong. */
export function parseCaps(text: string): number[] {
  const t = text.trim();
  let caps: number[];
  if (t.includes(':')) {
    const parts = t.split(':').map((p) => Number(p));
    if (parts.length !== 3 || parts.some((p) => !Number.isFinite(p))) throw new CapGridError(`--caps FROM:TO:STEP wants three numbers, got "${text}"`);
    const [from, to, step] = parts as [number, number, number];
    if (!(step > 0) || to < from) throw new CapGridError(`--caps ${text}: needs FROM <= TO and STEP > 0`);
    const n = Math.floor((to - from) / step + 1e-9) + 1;
    if (n > MAX_TUNE_CAPS) throw new CapGridError(`--caps ${text} gives ${n} caps; at most ${MAX_TUNE_CAPS} (each is visited at least twice)`);
    caps = Array.from({ length: n }, (_, i) => Math.round((from + i * step) * 1e6) / 1e6);
  } else {
    caps = t.split(',').map((p) => Number(p.trim()));
    if (caps.length === 0 || caps.some((c) => !Number.isFinite(c) || c <= 0)) throw new CapGridError(`--caps wants FROM:TO:STEP or a list of watts like 300,400,500, got "${text}"`);
    if (caps.length > MAX_TUNE_CAPS) throw new CapGridError(`--caps lists ${caps.length} caps; at most ${MAX_TUNE_CAPS}`);
  }
  const unique = [...new Set(caps)].sort((a, b) => a - b);
  if (unique.length < 2) throw new CapGridError(`--caps ${text}: give at least two caps to compare`);
  return unique;
}

/** Caps outside the device's limits, named for the error. */
export function capsOutside(caps: readonly number[], limits: DeviceLimits): number[] {
  return caps.filter((c) => c < limits.min_w - 1e-9 || c > limits.max_w + 1e-9);
}

/**
 * The default coarse grid: five caps from 40 % of the default limit (or the device minimum) up to the default limit
 * itself, which is always measured: the saving is stated against it.
 */
export function coarseGrid(limits: DeviceLimits, defaultW: number, count = 5): number[] {
  const lo = Math.max(limits.min_w, 0.4 * defaultW);
  const hi = Math.min(limits.max_w, defaultW);
  const caps = Array.from({ length: count }, (_, i) => snapCap(Math.round((lo + ((hi - lo) * i) / (count - 1)) / 5) * 5, limits));
  caps[count - 1] = snapCap(hi, limits);
  return [...new Set(caps)].sort((a, b) => a - b);
}
