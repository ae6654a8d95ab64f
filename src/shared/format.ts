// Number formatting shared by the app and the report, so both print the same digits.

export function fmt(x: number | null | undefined, digits = 1): string {
  if (x == null || !Number.isFinite(x)) return '–';
  return x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** Numbers with about 3 significant digits (efficiency values span 0.01 to 100). */
export function sig(x: number | null | undefined, n = 3): string {
  if (x == null || !Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  const d = Math.max(0, n - 1 - Math.floor(Math.log10(Math.abs(x))));
  return fmt(x, Math.min(d, 6));
}

export const TRACE_COLORS = ['#4e9af1', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#edc948', '#76b7b2', '#ff9da7'];
export const colorFor = (i: number) => TRACE_COLORS[i % TRACE_COLORS.length]!;
/**
 * Sweep series colours: blue for the sweep shown, then one each for up to 8 compared (teal, purple, green, pink,
 * brown, cyan, grey, indigo). None is the warning orange, the problem red or the best-cap ring's yellow, so a
 * compared curve is never read as a flag.
 */
const SERIES_COLORS = ['#4e9af1', '#2bb3a3', '#9d6fe0', '#59a14f', '#d46fb0', '#9c755f', '#17becf', '#8a8f98', '#4b4fc4'];
export const seriesColor = (i: number) => SERIES_COLORS[i % SERIES_COLORS.length]!;

/** A value for a message: at most `max` characters, saying how long it was when cut (a 200 MB name is not echoed). */
export function cutText(s: string, max = 200): string {
  return s.length <= max ? s : `${s.slice(0, max)}... (${s.length} characters)`;
}
