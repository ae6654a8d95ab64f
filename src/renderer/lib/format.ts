export { formatDuration, formatWatts } from '../../shared/units';
import { formatDuration } from '../../shared/units';
export { colorFor, fmt, sig } from '../../shared/format';

export function dateTime(epochS: number | null | undefined): string {
  if (epochS == null) return '–';
  const d = new Date(epochS * 1000);
  return d.toLocaleString('sv-SE').slice(0, 16);
}

/** A time range to the second, its end without the date when it is the same day, and its length: a 32 s log reads "… 14:05:03 – 14:05:35 (32s)". */
export function timeSpan(startS: number | null | undefined, endS: number | null | undefined): string {
  if (startS == null || endS == null) return 'time range not recorded';
  const a = new Date(startS * 1000).toLocaleString('sv-SE');
  const b = new Date(endS * 1000).toLocaleString('sv-SE');
  const end = a.slice(0, 10) === b.slice(0, 10) ? b.slice(11, 19) : b.slice(0, 19);
  return `${a.slice(0, 19)} – ${end} (${formatDuration(endS - startS)})`;
}

/** "1 device", "8 devices", "160,000 samples". */
export function count(n: number, noun: string): string {
  return `${n.toLocaleString('en')} ${noun}${n === 1 ? '' : 's'}`;
}

/** A best cap in words: "300 W", or "no answer" where the analysis has none (never "– W"). */
export function bestCapText(capW: number | null | undefined): string {
  return capW == null ? 'no answer' : `${capW} W`;
}
