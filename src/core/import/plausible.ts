// What a reading may hold. Two limits per channel: what the block store can hold at all (|round(v * scale)| < 2^51,
// sampleSpec's scale) and what is physically possible. A value beyond the first is a corrupt file (the import fails at
// that line); one beyond the second is an impossible reading (the row is skipped, counted like any unreadable row).
import type { DatasetDeviceKind } from '../../shared/dataset';
import { scaleOf, type ReadingField } from '../../shared/sample';
import { CHANNELS, type Channel } from './batch';

/** The store quantises each value to an integer below 2^51 (block-codec.ts). */
const MAX_QUANTUM = 2 ** 51;

const fieldOf = (ch: Channel): ReadingField => (ch === 'power_instant_w' || ch === 'power_derived_w' ? 'power_w' : ch);

/** Largest |value| of each channel (and of t, s) the store holds. */
export const STORABLE: Record<Channel | 't', number> = Object.fromEntries(
  [...CHANNELS, 't' as const].map((ch) => [ch, MAX_QUANTUM / scaleOf(ch === 't' ? 't' : fieldOf(ch)) - 1]),
) as Record<Channel | 't', number>;

/** Upper bounds of power by what the device is: no GPU or CPU package draws 10 kW, no job's nodes 10 MW, no site 10 GW. */
export const MAX_POWER_W: Record<DatasetDeviceKind, number> = { gpu: 10_000, cpu: 10_000, node: 10_000_000, facility: 10_000_000_000 };

interface Bound {
  /** The smallest possible value (inclusive unless `above`). */
  min: number;
  /** Strictly above min (absolute zero cannot be reached). */
  above?: boolean;
  max: number | 'power';
  unit: string;
  what: string;
}

const power = (what: string): Bound => ({ min: 0, max: 'power', unit: 'W', what });

/** Physical bounds per channel: negative power, energy, clocks or memory; temperatures at or below absolute zero or above 500 °C (solder melts well before); utilisation outside 0-100 %. */
export const BOUNDS: Record<Channel, Bound> = {
  power_instant_w: power('power'),
  power_avg_w: power('power'),
  power_derived_w: power('power (from an energy counter)'),
  energy_mj: { min: 0, max: Infinity, unit: 'mJ', what: 'energy counter' },
  sm_clock_mhz: { min: 0, max: 100_000, unit: 'MHz', what: 'SM clock' },
  mem_clock_mhz: { min: 0, max: 100_000, unit: 'MHz', what: 'memory clock' },
  temp_c: { min: -273.15, above: true, max: 500, unit: '°C', what: 'temperature' },
  util_gpu: { min: 0, max: 100, unit: '%', what: 'utilisation' },
  util_mem: { min: 0, max: 100, unit: '%', what: 'memory utilisation' },
  mem_used_mb: { min: 0, max: Infinity, unit: 'MB', what: 'memory used' },
  limit_w: power('power limit'),
};

/** A number for a message: short whatever the value (a 400-digit mantissa is printed in exponent form). */
export function shortNumber(v: number): string {
  const s = String(v);
  return s.length <= 24 ? s : v.toPrecision(6);
}

/** A timestamp for a message: ISO-8601 where Date can print it, else the number of seconds. */
function timeWords(t: number, clock: 'wall' | 'relative'): string {
  // Years 0-9999 only: ISO-8601 writes others as ±YYYYYY, which reads as a typo.
  if (clock === 'wall' && t >= -62167219200 && t < 253402300800) return new Date(t * 1000).toISOString();
  return `${shortNumber(t)} s`;
}

const isoOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

export type RowProblem = { fatal: true; message: string } | { fatal: false; reason: string };

/** Per device kind, each channel's plausible [lo, hi] by channel index (the hot loop's flat arrays), and a lo that is itself excluded (absolute zero) or NaN. */
const RANGES = Object.fromEntries(
  (Object.keys(MAX_POWER_W) as DatasetDeviceKind[]).map((kind) => {
    const b = CHANNELS.map((ch) => BOUNDS[ch]);
    return [
      kind,
      {
        lo: Float64Array.from(b, (x) => x.min),
        hi: Float64Array.from(b, (x, k) => Math.min(x.max === 'power' ? MAX_POWER_W[kind] : x.max, STORABLE[CHANNELS[k]!])),
        strict: Float64Array.from(b, (x) => (x.above ? x.min : NaN)),
      },
    ];
  }),
) as Record<DatasetDeviceKind, { lo: Float64Array; hi: Float64Array; strict: Float64Array }>;

/**
 * What is wrong with the reading at row i of the channel columns `cols` (CHANNELS order; NaN: missing), or null.
 * Fatal: a timestamp or value the store cannot hold; else a skip reason naming the channel and bound (one reason
 * per bound, so the report counts them). Runs for every row an import reads: plausible rows take one comparison
 * pair per channel.
 */
export function rowProblem(t: number, cols: readonly Float64Array[], i: number, kind: DatasetDeviceKind, clock: 'wall' | 'relative'): RowProblem | null {
  if (!(Math.abs(t) <= STORABLE.t))
    return {
      fatal: true,
      message: `timestamp ${timeWords(t, clock)} is outside the range the store holds (${clock === 'wall' ? `${isoOf(-STORABLE.t)} to ${isoOf(STORABLE.t)}` : `±${shortNumber(Math.floor(STORABLE.t))} s`})`,
    };
  const { lo, hi, strict } = RANGES[kind];
  for (let k = 0; k < CHANNELS.length; k++) {
    const v = cols[k]![i]!;
    if ((v >= lo[k]! && v <= hi[k]! && v !== strict[k]) || v !== v) continue;
    const ch = CHANNELS[k]!;
    const b = BOUNDS[ch];
    if (!(Math.abs(v) <= STORABLE[ch])) return { fatal: true, message: `${b.what} ${shortNumber(v)} ${b.unit} is beyond what the store holds (|value| < ${shortNumber(Math.floor(STORABLE[ch]))} ${b.unit})` };
    const max = b.max === 'power' ? MAX_POWER_W[kind] : b.max;
    if (b.above ? v <= b.min : v < b.min) return { fatal: false, reason: `impossible ${b.what}: ${b.above ? 'at or below' : 'below'} ${b.min} ${b.unit}` };
    if (v > max) return { fatal: false, reason: `impossible ${b.what}: above ${shortNumber(max)} ${b.unit}${b.max === 'power' ? ` for a ${kind}` : ''}` };
  }
  return null;
}
