import { sameAt } from './scan';

// Wall-clock timestamps of logs in a given IANA zone, parsed by hand. Zone offsets come from Intl and are
// cached per minute prefix, so a 10 M-row log costs one Intl call per distinct minute.

const dtfCache = new Map<string, Intl.DateTimeFormat>();

export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Throws RangeError for an unknown zone. */
export function checkZone(zone: string): string {
  new Intl.DateTimeFormat('en-US', { timeZone: zone });
  return zone;
}

function dtf(zone: string): Intl.DateTimeFormat {
  let f = dtfCache.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    dtfCache.set(zone, f);
  }
  return f;
}

/** Offset of `zone` from UTC at the instant `utcMs`, in ms (positive east of Greenwich). */
function offsetAt(zone: string, utcMs: number): number {
  const p: Record<string, number> = {};
  for (const part of dtf(zone).formatToParts(new Date(utcMs))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** Epoch seconds of a wall-clock minute in `zone` (the earlier instant when a DST fold repeats it). */
export function zonedMinute(zone: string, y: number, mo: number, d: number, h: number, mi: number): number {
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  if (zone === 'UTC' || zone === 'Etc/UTC') return wall / 1000;
  let guess = wall - offsetAt(zone, wall);
  guess = wall - offsetAt(zone, guess);
  return guess / 1000;
}

const two = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);
const four = (s: string, i: number) => two(s, i) * 100 + two(s, i + 2);
const digit = (c: number) => c >= 48 && c <= 57;
const DIGIT_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

/**
 * Parses `YYYY?MM?DD?HH:MM:SS[.fff...]` (any single-char separators: `2026/11/30 08:45:57.673`,
 * `2026-11-30_08:45:57.673370`, `2026-11-30T08:45:57`) at s[a, b) in `zone`; a trailing `Z` or `+hh:mm` wins
 * over the zone. NaN when it is not such a timestamp.
 */
export class WallClock {
  private prefix = '';
  private base = NaN;

  constructor(readonly zone: string) {}

  parse(s: string, a: number, b: number): number {
    if (b - a < 19) return NaN;
    let base: number;
    if (this.prefix.length === 16 && sameAt(s, a, this.prefix)) {
      base = this.base;
      if (!digit(s.charCodeAt(a + 17)) || !digit(s.charCodeAt(a + 18))) return NaN;
    } else {
      for (let k = 0; k < DIGIT_AT.length; k++) if (!digit(s.charCodeAt(a + DIGIT_AT[k]!))) return NaN;
      if (s.charCodeAt(a + 13) !== 58 || s.charCodeAt(a + 16) !== 58) return NaN;
      const y = four(s, a);
      const mo = two(s, a + 5);
      const d = two(s, a + 8);
      const h = two(s, a + 11);
      const mi = two(s, a + 14);
      if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59) return NaN;
      base = zonedMinute(this.zone, y, mo, d, h, mi);
      this.prefix = s.slice(a, a + 16);
      this.base = base;
    }
    const sec = two(s, a + 17);
    if (sec > 60) return NaN;
    let frac = 0;
    let scale = 1;
    let i = a + 19;
    if (i < b && s.charCodeAt(i) === 46) {
      i++;
      let c: number;
      while (i < b && digit((c = s.charCodeAt(i)))) {
        if (scale < 1e9) {
          frac = frac * 10 + (c - 48);
          scale *= 10;
        }
        i++;
      }
    }
    let t = base + sec + frac / scale;
    if (i < b) {
      const c = s.charCodeAt(i);
      if (c === 90) {
        t = this.utcRebase(s, a) + sec + frac / scale;
        i++;
      } else if ((c === 43 || c === 45) && b - i >= 6) {
        const sign = c === 43 ? 1 : -1;
        const off = (two(s, i + 1) * 60 + two(s, i + 4)) * 60 * sign;
        t = this.utcRebase(s, a) - off + sec + frac / scale;
        i += 6;
      }
      while (i < b && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
      if (i < b) return NaN;
    }
    return t;
  }

  private utcRebase(s: string, a: number): number {
    return Date.UTC(four(s, a), two(s, a + 5) - 1, two(s, a + 8), two(s, a + 11), two(s, a + 14)) / 1000;
  }
}
