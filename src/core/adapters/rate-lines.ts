import { AdapterError, fileName, mean, parseNumber, splitLines, std, type ThroughputAdapter } from './types';

/**
 * Training logs that print a rate per line in words, as PyTorch examples, torchvision's reference scripts and many
 * trainers do: `... 1234.5 images/sec`, `throughput: 812 samples/s`, `tokens/sec: 30512`. No pattern needed.
 * The rate is the mean of the reported rates after the warm-up lines; the log carries no absolute window, so a sweep
 * measures energy over its own window (warm-up end to the run's end).
 */
const UNIT = '(images|image|imgs|img|samples|sample|tokens|token|sequences|seqs|items)';
const AFTER = new RegExp(`(\\d[\\d,]*(?:\\.\\d+)?(?:e[+-]?\\d+)?)\\s*${UNIT}\\s*(?:/|per\\s+)\\s*(?:sec|second|s)\\b`, 'i');
// A label with a separator ("img/s: 2488.35") wins over a number before the unit ("lr: 0.1  img/s: …").
const BEFORE = new RegExp(`\\b${UNIT}\\s*(?:/|per\\s+)\\s*(?:sec|second|s)\\b\\s*[:=]\\s*(\\d[\\d,]*(?:\\.\\d+)?(?:e[+-]?\\d+)?)`, 'i');

const canonical = (u: string) => {
  const x = u.toLowerCase();
  if (x.startsWith('im')) return 'images';
  if (x.startsWith('tok')) return 'tokens';
  if (x.startsWith('seq')) return 'sequences';
  if (x.startsWith('item')) return 'items';
  return 'samples';
};

function match(line: string): { rate: number; units: string } | null {
  const b = BEFORE.exec(line);
  const a = b ? null : AFTER.exec(line);
  const [num, unit] = b ? [b[2]!, b[1]!] : a ? [a[1]!, a[2]!] : [null, null];
  if (num === null || unit === null) return null;
  const rate = parseNumber(num.replace(/,/g, ''));
  return rate === null ? null : { rate, units: canonical(unit) };
}

export const rateLinesAdapter: ThroughputAdapter = {
  name: 'rate-lines',
  title: 'Training logs with a rate per line in words (PyTorch-style "1234.5 images/sec")',
  defaultUnits: 'images',
  defaultSkip: 1,
  skipCounts: 'leading rate lines dropped as warm-up',
  detect(text) {
    const lines = splitLines(text).slice(0, 2000);
    const hits = lines.filter((l) => match(l) !== null).length;
    // Below the tools with a format of their own: a plain rate in words is the weakest evidence.
    return hits >= 2 ? 0.3 : 0;
  },
  read(text, opts) {
    const file = fileName(opts);
    const found: { line: number; rate: number; units: string }[] = [];
    splitLines(text).forEach((l, i) => {
      const m = match(l);
      if (m) found.push({ line: i + 1, ...m });
    });
    if (!found.length) throw new AdapterError('no line reports a rate such as "1234.5 images/sec"', file, null);
    const skip = Math.min(opts.skip ?? this.defaultSkip, found.length - 1);
    const used = found.slice(skip);
    const kinds = [...new Set(used.map((f) => f.units))];
    if (kinds.length > 1) throw new AdapterError(`the log reports rates in several units (${kinds.join(', ')}); use --pattern to pick one`, file, used[0]!.line);
    const rates = used.map((f) => f.rate);
    return {
      adapter: 'rate-lines',
      units: opts.units ?? kinds[0]!,
      count: null,
      seconds: null,
      rate: mean(rates),
      window: null,
      window_derived: 'the log has no absolute times: the reported rates after the skipped lines, no window of their own',
      details: {
        method: 'mean of the reported rates',
        lines: used.length,
        skipped: skip,
        first_line: used[0]!.line,
        rate_sd: rates.length > 1 ? std(rates) : null,
        window_note: 'the log has no absolute times: a sweep lays energy over its own window, from warm-up end to the run end',
      },
    };
  },
};
