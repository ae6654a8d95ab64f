// How the report prints numbers: significant digits without digit grouping, so `pdftotext` output compares
// directly with `caplab analyze --json` (rounded to the same digits).
import type { Stat } from '../../shared/analysis';

/** x to `digits` significant digits ("–" for a missing value). */
export function num(x: number | null | undefined, digits = 4): string {
  if (x == null || !Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 10 ** digits) return String(Math.round(x));
  return String(Number(x.toPrecision(digits)));
}

/** "0.5123 ± 0.0041" (95 % CI half width), or "0.5123 (n = 1)" without a CI. */
export function meanCi(s: Stat, digits = 4): string {
  if (s.mean == null) return '–';
  return s.ci ? `${num(s.mean, digits)} ± ${num(s.ci.half_width, 3)}` : `${num(s.mean, digits)} (n = ${s.n})`;
}

export function pct(x: number | null | undefined, digits = 1): string {
  return x == null || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(digits)} %`;
}

/** Epoch seconds as "2026-11-30 23:31:05 UTC". */
export function utc(epochS: number | null | undefined): string {
  if (epochS == null || !Number.isFinite(epochS)) return '–';
  return new Date(epochS * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}
