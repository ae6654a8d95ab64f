import { AdapterError, fileName, mean, parseNumber, splitLines, type ThroughputAdapter } from './types';

/**
 * A user-configured adapter: a regular expression matched against every line, with named groups
 *   units   work units done in that line's interval      seconds  length of that interval
 *   rate    units per second the tool reports             t        a timestamp in seconds (epoch or relative)
 * Python-style `(?P<name>...)` groups are accepted. Supported combinations:
 *   units + seconds   count = sum of units, seconds = sum of seconds
 *   units + t         count = units after the first match, seconds = last t - first t
 *   rate (+ t)        rate = mean of the rates (count and seconds unknown)
 */

export function compileUserPattern(pattern: string, file = '<pattern>'): RegExp {
  const js = pattern.replace(/\(\?P</g, '(?<');
  let re: RegExp;
  try {
    re = new RegExp(js);
  } catch (e) {
    throw new AdapterError(`invalid regular expression: ${(e as Error).message}`, file, null);
  }
  const groups = new Set([...js.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]!));
  const known = ['units', 'seconds', 'rate', 't'];
  const unknown = [...groups].filter((g) => !known.includes(g));
  if (unknown.length) throw new AdapterError(`unknown named group(s) ${unknown.join(', ')}; use units, seconds, rate, t`, file, null);
  const ok = (groups.has('units') && (groups.has('seconds') || groups.has('t'))) || groups.has('rate');
  if (!ok) throw new AdapterError('the pattern needs named groups units+seconds, units+t, or rate', file, null);
  return re;
}

export const regexAdapter: ThroughputAdapter = {
  name: 'regex',
  title: 'Generic regular expression (named groups units, seconds, rate, t)',
  defaultUnits: 'units',
  defaultSkip: 0,
  skipCounts: 'leading matching lines dropped as warm-up',
  detect() {
    return 0; // needs a pattern: never chosen automatically
  },
  read(text, opts) {
    const file = fileName(opts);
    if (!opts.pattern) throw new AdapterError('the regex adapter needs a pattern (--pattern)', file, null);
    const re = compileUserPattern(opts.pattern, file);
    const matches: { line: number; units?: number; seconds?: number; rate?: number; t?: number }[] = [];
    splitLines(text).forEach((l, i) => {
      const m = re.exec(l);
      if (!m?.groups) return;
      const rec: (typeof matches)[number] = { line: i + 1 };
      for (const k of ['units', 'seconds', 'rate', 't'] as const) {
        const raw = m.groups[k];
        if (raw === undefined) continue;
        const n = parseNumber(raw);
        if (n === null) throw new AdapterError(`group ${k} matched "${raw.slice(0, 40)}", not a number`, file, i + 1);
        rec[k] = n;
      }
      matches.push(rec);
    });
    const used = matches.slice(opts.skip ?? 0);
    if (!used.length) throw new AdapterError(`no line matches the pattern ${opts.pattern}`, file, null);
    const units = opts.units ?? this.defaultUnits;
    const has = (k: 'units' | 'seconds' | 'rate' | 't') => used.every((m) => m[k] !== undefined);
    const absolute = (t: number) => t > 1e9; // epoch seconds rather than a relative clock
    if (has('units') && has('seconds')) {
      const count = used.reduce((a, m) => a + m.units!, 0);
      const seconds = used.reduce((a, m) => a + m.seconds!, 0);
      if (!(seconds > 0)) throw new AdapterError('matched intervals add up to zero seconds', file, used[0]!.line);
      const ts = has('t') ? used.map((m) => m.t!) : null;
      return {
        adapter: 'regex',
        units,
        count,
        seconds,
        rate: count / seconds,
        window: ts && absolute(ts[0]!) ? { start: ts[0]! - used[0]!.seconds!, end: ts[ts.length - 1]! } : null,
        window_derived: ts && absolute(ts[0]!) ? 'absolute: the t group of the first match less its seconds, to the last match' : 'no absolute time in the matches: the sum of the matched seconds',
        details: { method: 'sum of units / sum of seconds', matches: used.length, first_line: used[0]!.line },
      };
    }
    if (has('units') && has('t')) {
      if (used.length < 2) throw new AdapterError('units + t needs at least two matching lines', file, used[0]!.line);
      const first = used[0]!;
      const last = used[used.length - 1]!;
      const count = used.slice(1).reduce((a, m) => a + m.units!, 0);
      const seconds = last.t! - first.t!;
      if (!(seconds > 0)) throw new AdapterError('t does not advance between the first and the last match', file, last.line);
      return {
        adapter: 'regex',
        units,
        count,
        seconds,
        rate: count / seconds,
        window: absolute(first.t!) ? { start: first.t!, end: last.t! } : null,
        window_derived: absolute(first.t!) ? 'absolute: the t group of the first and last matches' : 'relative: the t group of the first and last matches (not epoch seconds)',
        details: { method: 'units after the first match / time span', matches: used.length, first_line: first.line },
      };
    }
    if (has('rate')) {
      const ts = has('t') ? used.map((m) => m.t!) : null;
      return {
        adapter: 'regex',
        units,
        count: null,
        seconds: null,
        rate: mean(used.map((m) => m.rate!)),
        window: ts && ts.length > 1 && absolute(ts[0]!) ? { start: ts[0]!, end: ts[ts.length - 1]! } : null,
        window_derived: ts && ts.length > 1 && absolute(ts[0]!) ? 'absolute: the t group of the first and last matches' : 'no absolute time in the matches: the mean of the reported rates, no window of its own',
        details: { method: 'mean of reported rates', matches: used.length, first_line: used[0]!.line },
      };
    }
    throw new AdapterError('matching lines lack the groups the pattern promises (some matches have no units/seconds/rate)', file, used[0]!.line);
  },
};
