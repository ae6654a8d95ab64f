import { AdapterError, excerpt, fileName, mean, splitLines, type ThroughputAdapter } from './types';

/**
 * MLPerf logging (`mlperf_logging.mllog`): lines `:::MLLOG {"namespace": "", "time_ms": ..., "event_type": ...,
 * "key": ..., "value": ..., "metadata": {...}}`, often behind a rank prefix (`0: `, `[1] `).
 *
 * Throughput, in order of preference:
 *  1. `samples_count` progress: training events (not eval_*) whose metadata carries samples_count; count = its increase,
 *     seconds = time between the first and the last such event (after `skip` of them).
 *  2. reported throughput: `throughput` events (a number, or {throughput: x}) or `tracked_stats` with
 *     value.throughput; rate = their mean after `skip`.
 *  3. run_start .. run_stop with metadata step_num (or epoch_num) x global_batch_size.
 */

interface MlEvent {
  line: number;
  key: string;
  value: unknown;
  t: number;
  metadata: Record<string, unknown>;
}

const PREFIX = ':::MLLOG ';

export const mllogAdapter: ThroughputAdapter = {
  name: 'mllog',
  title: 'MLPerf logging (`:::MLLOG {json}` lines)',
  defaultUnits: 'samples',
  defaultSkip: 0,
  skipCounts: 'leading samples_count or throughput events dropped as warm-up',
  detect(text) {
    return text.includes(PREFIX + '{') ? 0.92 : 0;
  },
  read(text, opts) {
    const file = fileName(opts);
    const events: MlEvent[] = [];
    splitLines(text).forEach((l, i) => {
      const at = l.indexOf(PREFIX);
      if (at < 0) return;
      const body = l.slice(at + PREFIX.length).trim();
      let v: unknown;
      try {
        v = JSON.parse(body);
      } catch {
        throw new AdapterError(`not JSON after :::MLLOG: ${excerpt(body, 60)}`, file, i + 1);
      }
      const o = v as Record<string, unknown>;
      if (!o || typeof o !== 'object' || typeof o.key !== 'string' || typeof o.time_ms !== 'number') {
        throw new AdapterError('MLLOG record without a string key and a numeric time_ms', file, i + 1);
      }
      const md = o.metadata && typeof o.metadata === 'object' ? (o.metadata as Record<string, unknown>) : {};
      events.push({ line: i + 1, key: o.key, value: o.value, t: o.time_ms / 1000, metadata: md });
    });
    if (!events.length) throw new AdapterError('no :::MLLOG lines found', file, null);
    const skip = opts.skip ?? this.defaultSkip;
    const value = (k: string) => events.find((e) => e.key === k)?.value;
    const gbs = typeof value('global_batch_size') === 'number' ? (value('global_batch_size') as number) : null;
    const benchmark = typeof value('submission_benchmark') === 'string' ? value('submission_benchmark') : null;
    const runStart = events.find((e) => e.key === 'run_start');
    const runStop = events.find((e) => e.key === 'run_stop');
    const common = {
      benchmark,
      global_batch_size: gbs,
      run_start: runStart?.t ?? null,
      run_stop: runStop?.t ?? null,
      status: (runStop?.metadata.status as string | undefined) ?? null,
      events: events.length,
    };
    const units = opts.units ?? this.defaultUnits;

    // 2. reported throughput values (used as a detail in 1 too).
    const reported = events
      .map((e) => {
        if (e.key === 'throughput' && typeof e.value === 'number') return { e, v: e.value };
        if ((e.key === 'throughput' || e.key === 'tracked_stats') && e.value && typeof e.value === 'object' && typeof (e.value as Record<string, unknown>).throughput === 'number') {
          return { e, v: (e.value as Record<string, number>).throughput! };
        }
        return null;
      })
      .filter((x): x is { e: MlEvent; v: number } => x !== null)
      .slice(skip);

    // 1. samples_count progress.
    const progress = events.filter((e) => typeof e.metadata.samples_count === 'number' && !e.key.startsWith('eval')).slice(skip);
    if (progress.length >= 2) {
      const first = progress[0]!;
      const last = progress[progress.length - 1]!;
      const count = (last.metadata.samples_count as number) - (first.metadata.samples_count as number);
      const wall = last.t - first.t;
      // Evaluation pauses are not training: the rate counts training time only, as MLPerf's own figures do.
      const evalS = pauses(events, 'eval_start', 'eval_stop', first.t, last.t);
      const seconds = wall - evalS;
      if (count > 0 && seconds > 0) {
        return {
          adapter: 'mllog',
          units,
          count,
          seconds,
          rate: count / seconds,
          window: { start: first.t, end: last.t },
          window_derived: 'absolute: MLLOG time_ms of the first and last counted records',
          details: {
            method: 'samples_count progress over training time (evaluation pauses left out)',
            wall_clock_seconds: wall,
            eval_seconds: evalS,
            wall_clock_rate: count / wall,
            first_line: first.line,
            last_line: last.line,
            reported_throughput_mean: reported.length ? mean(reported.map((r) => r.v)) : null,
            ...common,
          },
        };
      }
    }
    if (reported.length) {
      const first = reported[0]!.e;
      const last = reported[reported.length - 1]!.e;
      return {
        adapter: 'mllog',
        units,
        count: null,
        seconds: null,
        rate: mean(reported.map((r) => r.v)),
        window: last.t > first.t ? { start: first.t, end: last.t } : null,
        window_derived: last.t > first.t ? 'absolute: MLLOG time_ms of the first and last throughput records' : 'one throughput record: the reported rate, no window',
        details: { method: 'reported throughput (mean)', values: reported.length, first_line: first.line, ...common },
      };
    }
    // 3. the whole run.
    if (runStart && runStop && gbs) {
      const steps = typeof runStop.metadata.step_num === 'number' ? runStop.metadata.step_num : typeof runStop.metadata.epoch_num === 'number' ? runStop.metadata.epoch_num : null;
      const seconds = runStop.t - runStart.t;
      if (steps !== null && seconds > 0) {
        const count = steps * gbs;
        return {
          adapter: 'mllog',
          units,
          count,
          seconds,
          rate: count / seconds,
          window: { start: runStart.t, end: runStop.t },
          window_derived: 'absolute: MLLOG run_start to run_stop',
          details: { method: 'run_start..run_stop x global_batch_size (includes evaluation time)', steps, ...common },
        };
      }
    }
    throw new AdapterError('no samples_count progress, throughput events or run_start/run_stop with step_num and global_batch_size', file, events[0]!.line);
  },
};

/** Seconds inside [from, to] spent between `startKey` and `stopKey` events (an open interval runs to `to`). */
function pauses(events: readonly MlEvent[], startKey: string, stopKey: string, from: number, to: number): number {
  let total = 0;
  let open: number | null = null;
  for (const e of events) {
    if (e.key === startKey) open = e.t;
    else if (e.key === stopKey && open !== null) {
      total += Math.max(0, Math.min(e.t, to) - Math.max(open, from));
      open = null;
    }
  }
  if (open !== null) total += Math.max(0, to - Math.max(open, from));
  return total;
}
