import { AdapterError, fileName, firstLine, mean, parseCsv, parseNumber, type ThroughputAdapter } from './types';

/**
 * LitGPT `metrics.csv` (Lightning's CSV logger): one row per logged iteration with `iter`, `iter_time`,
 * `tokens` (per device, cumulative), `total_tokens` (all devices, cumulative), `time` (seconds since training
 * start, from Lightning's throughput monitor) and, once its window is full, `items_per_sec` (global tokens/s,
 * multi-device only) and `device/items_per_sec`. Columns may come in any order; validation rows have no tokens.
 *
 * Window: from the row after the first `skip` rows (the baseline) to the last row. Count = total_tokens
 * difference; seconds = training time: the `time` difference, less validation pauses (where validation rows lie
 * between two training rows, that stretch counts as its iterations x iter_time), or, without `time`,
 * iterations x iter_time. The wall-clock rate, pauses included, is given beside it, as for MLLOG.
 */

interface Row {
  line: number;
  iter: number;
  total_tokens: number | null;
  tokens: number | null;
  time: number | null;
  iter_time: number | null;
  items_per_sec: number | null;
  device_items_per_sec: number | null;
  timestamp: string | null;
}

export const litgptAdapter: ThroughputAdapter = {
  name: 'litgpt',
  title: 'LitGPT metrics.csv (`iter,step,iter_time,tokens,total_tokens,...,items_per_sec`)',
  defaultUnits: 'tokens',
  defaultSkip: 1,
  skipCounts: 'logged rows dropped before the baseline row',
  detect(text) {
    const h = firstLine(text).split(',').map((s) => s.trim());
    if (!h.includes('iter')) return 0;
    if (h.includes('total_tokens') || (h.includes('tokens') && h.includes('iter_time'))) return 0.9;
    return 0;
  },
  read(text, opts) {
    const file = fileName(opts);
    const { header, rows } = parseCsv(text, file);
    const col = (n: string) => header.indexOf(n);
    if (col('iter') < 0) throw new AdapterError("no 'iter' column in the header", file, 1);
    if (col('total_tokens') < 0 && col('tokens') < 0) throw new AdapterError("no 'total_tokens' or 'tokens' column in the header", file, 1);
    const num = (cells: string[], name: string, line: number): number | null => {
      const i = col(name);
      if (i < 0) return null;
      const raw = cells[i]!.trim();
      if (raw === '') return null;
      const n = parseNumber(raw);
      if (n === null) throw new AdapterError(`${name} is not a number: "${raw.slice(0, 40)}"`, file, line);
      return n;
    };
    const data: Row[] = [];
    const evalLines: number[] = [];
    for (const r of rows) {
      const total = num(r.cells, 'total_tokens', r.line);
      const tokens = num(r.cells, 'tokens', r.line);
      const iter = num(r.cells, 'iter', r.line);
      if (iter === null || (total === null && tokens === null)) {
        evalLines.push(r.line); // validation rows
        continue;
      }
      data.push({
        line: r.line,
        iter,
        total_tokens: total,
        tokens,
        time: num(r.cells, 'time', r.line),
        iter_time: num(r.cells, 'iter_time', r.line),
        items_per_sec: num(r.cells, 'items_per_sec', r.line),
        device_items_per_sec: num(r.cells, 'device/items_per_sec', r.line),
        timestamp: col('timestamp') >= 0 ? r.cells[col('timestamp')]!.trim() || null : null,
      });
    }
    if (!data.length) throw new AdapterError('no training rows (rows with iter and tokens)', file, rows[0]?.line ?? 1);
    for (let i = 1; i < data.length; i++) {
      if (data[i]!.iter <= data[i - 1]!.iter) throw new AdapterError(`iter goes backwards (${data[i - 1]!.iter} then ${data[i]!.iter}): two runs in one file?`, file, data[i]!.line);
    }
    const warnings: string[] = [];
    const last = data[data.length - 1]!;
    const worldSize = last.total_tokens !== null && last.tokens ? Math.round(last.total_tokens / last.tokens) : null;
    const tokensOf = (r: Row) => r.total_tokens ?? r.tokens!;
    if (last.total_tokens === null) warnings.push('no total_tokens column: counting per-device tokens');

    let skip = opts.skip ?? this.defaultSkip;
    if (skip > data.length - 2) {
      if (data.length >= 2) warnings.push(`only ${data.length} rows: skip lowered from ${skip} to 0`);
      skip = 0;
    }
    let count: number;
    let seconds: number;
    let method: string;
    let wall: number | null = null;
    let evalPauseS = 0;
    let evalPauses = 0;
    if (data.length === 1) {
      // Only one row: everything since the start of training.
      count = tokensOf(last);
      if (last.time !== null) seconds = last.time;
      else if (last.iter_time !== null) seconds = last.iter * last.iter_time;
      else throw new AdapterError('one row without time or iter_time: no duration', file, last.line);
      method = 'single row, from the start of training';
      warnings.push('only one row: the window includes start-up');
    } else {
      const base = data[skip]!;
      const used = data.slice(skip + 1);
      count = tokensOf(last) - tokensOf(base);
      if (base.time !== null && last.time !== null) {
        wall = last.time - base.time;
        seconds = 0;
        let prev = base;
        for (const r of used) {
          const train = r.iter_time !== null ? (r.iter - prev.iter) * r.iter_time : null;
          const paused = evalLines.some((l) => l > prev.line && l < r.line);
          if (paused && train !== null && r.time! - prev.time! - train > 1e-6) {
            evalPauseS += r.time! - prev.time! - train;
            evalPauses++;
            seconds += train;
          } else seconds += r.time! - prev.time!;
          prev = r;
        }
        method = evalPauses ? 'time column, validation pauses excluded' : 'time column';
      } else {
        let prev = base.iter;
        seconds = 0;
        for (const r of used) {
          if (r.iter_time === null) throw new AdapterError('row without time or iter_time', file, r.line);
          seconds += (r.iter - prev) * r.iter_time;
          prev = r.iter;
        }
        method = 'iterations x iter_time (no time column)';
      }
    }
    if (!(seconds > 0)) throw new AdapterError('the measured window has no length', file, last.line);
    const rate = count / seconds;
    const used = data.slice(data.length === 1 ? 0 : skip + 1);
    const ips = used.map((r) => r.items_per_sec).filter((x): x is number => x !== null);
    const dips = used.map((r) => r.device_items_per_sec).filter((x): x is number => x !== null);
    return {
      adapter: 'litgpt',
      units: opts.units ?? this.defaultUnits,
      count,
      seconds,
      rate,
      window: null,
      window_derived:
        data.length === 1
          ? 'metrics.csv has no absolute time: from the start of training to the last row'
          : `metrics.csv has no absolute time: from iter ${data[skip]!.iter} (baseline row) to iter ${last.iter}, training time only (validation pauses excluded)`,
      details: {
        method,
        rows: data.length,
        rows_used: used.length,
        wall_clock_seconds: wall,
        wall_clock_rate: wall ? count / wall : null,
        eval_pauses: evalPauses,
        eval_pause_seconds: evalPauseS,
        first_iter: data.length === 1 ? 0 : data[skip]!.iter,
        last_iter: last.iter,
        world_size: worldSize,
        rate_per_gpu: worldSize ? rate / worldSize : null,
        items_per_sec_mean: ips.length ? mean(ips) : null,
        device_items_per_sec_mean: dips.length ? mean(dips) : null,
        local_time: last.timestamp ? { first: (data.length === 1 ? last : data[skip]!).timestamp, last: last.timestamp } : null,
        warnings,
      },
    };
  },
};
