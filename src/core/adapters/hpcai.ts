import { AdapterError, fileName, firstLine, mean, parseCsv, parseNumber, splitLines, std, type ThroughputAdapter } from './types';

/**
 * hpc-ai-perf-bench (RRZE) computer-vision benchmarks. Its performance callback logs, on rank 0, one line per
 * training epoch with the samples of all ranks:
 *   `2025-03-01 10:00:00,123 - ldm.callbacks... - INFO - Train Epoch 3: Processed 3200 samples in 21.54s (148.56 samples/sec)`
 * and appends a summary row per run to a CSV (`timestamp,gpu_name,num_gpus,batch_size,img_size,avg_train_sps,...`).
 */

const EPOCH_RE = /Train Epoch (\d+): Processed (\d+) samples in ([0-9.]+)s \(([0-9.]+) samples\/sec\)/;
const ASCTIME_RE = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})/;

interface Epoch {
  line: number;
  epoch: number;
  samples: number;
  seconds: number;
  sps: number;
  time: string | null;
}

export const hpcaiVisionAdapter: ThroughputAdapter = {
  name: 'hpcai-vision',
  title: 'hpc-ai-perf-bench vision log (`Train Epoch N: Processed ... samples/sec`)',
  defaultUnits: 'images',
  defaultSkip: 1,
  skipCounts: 'epochs (the first epoch is warm-up, as in the benchmark itself)',
  detect(text) {
    return /Train Epoch \d+: Processed \d+ samples in /.test(text) ? 0.9 : 0;
  },
  read(text, opts) {
    const file = fileName(opts);
    const epochs: Epoch[] = [];
    splitLines(text).forEach((l, i) => {
      if (!l.includes('Train Epoch')) return;
      const m = EPOCH_RE.exec(l);
      if (!m) {
        if (/Train Epoch \d+: Processed/.test(l)) throw new AdapterError(`malformed epoch line: ${l.trim().slice(0, 120)}`, file, i + 1);
        return;
      }
      const [samples, seconds, sps] = [Number(m[2]), Number(m[3]), Number(m[4])];
      if (![samples, seconds, sps].every(Number.isFinite)) throw new AdapterError('epoch line with a number that does not parse', file, i + 1);
      epochs.push({ line: i + 1, epoch: Number(m[1]), samples, seconds, sps, time: ASCTIME_RE.exec(l)?.[1] ?? null });
    });
    if (!epochs.length) throw new AdapterError("no 'Train Epoch N: Processed ... samples/sec' lines found", file, null);

    // One log may hold several runs (the benchmark loops over batch sizes): epochs restart at 0.
    const segments: Epoch[][] = [];
    for (const e of epochs) {
      const cur = segments[segments.length - 1];
      if (!cur || e.epoch <= cur[cur.length - 1]!.epoch) segments.push([e]);
      else cur.push(e);
    }
    const skip = opts.skip ?? this.defaultSkip;
    const summarise = (seg: Epoch[]) => {
      const warnings: string[] = [];
      let used = seg.slice(skip);
      if (!used.length) {
        used = seg;
        warnings.push(`only ${seg.length} epoch(s): the warm-up epoch is included`);
      }
      const count = used.reduce((a, e) => a + e.samples, 0);
      const seconds = used.reduce((a, e) => a + e.seconds, 0);
      return {
        first_line: seg[0]!.line,
        epochs: used.length,
        count,
        seconds,
        rate: count / seconds,
        mean_epoch_rate: mean(used.map((e) => e.sps)),
        std_epoch_rate: std(used.map((e) => e.sps)),
        first_time: used[0]!.time,
        last_time: used[used.length - 1]!.time,
        warnings,
      };
    };
    const runs = segments.map(summarise);
    const last = runs[runs.length - 1]!;
    if (!(last.seconds > 0)) throw new AdapterError('epochs with zero duration', file, last.first_line);
    const reported = /Average Training Performance: ([0-9.]+) \+\/- ([0-9.]+) samples\/sec/.exec(text);
    return {
      adapter: 'hpcai-vision',
      units: opts.units ?? this.defaultUnits,
      count: last.count,
      seconds: last.seconds,
      rate: last.rate,
      window: null,
      window_derived: 'the log has no absolute time: the epochs after the skipped (warm-up) ones, timed by their own durations',
      details: {
        epochs: last.epochs,
        mean_epoch_rate: last.mean_epoch_rate,
        std_epoch_rate: last.std_epoch_rate,
        local_time: last.first_time ? { first: last.first_time, last: last.last_time } : null,
        reported_avg_sps: reported ? Number(reported[1]) : null,
        runs: runs.length,
        all_runs: runs.length > 1 ? runs : undefined,
        warnings: last.warnings,
        note: 'samples are summed over all ranks; the log has local time only, so no absolute window',
      },
    };
  },
};

export const hpcaiCsvAdapter: ThroughputAdapter = {
  name: 'hpcai-csv',
  title: 'hpc-ai-perf-bench benchmark CSV (`timestamp,gpu_name,num_gpus,...,avg_train_sps,...`)',
  defaultUnits: 'images',
  defaultSkip: 0,
  skipCounts: 'rows (each row is one finished run; the last row is reported)',
  detect(text) {
    const first = firstLine(text);
    return first.includes('avg_train_sps') && first.includes(',') ? 0.95 : 0;
  },
  read(text, opts) {
    const file = fileName(opts);
    const { header, rows } = parseCsv(text, file);
    const col = (name: string) => header.indexOf(name);
    if (col('avg_train_sps') < 0) throw new AdapterError("no 'avg_train_sps' column in the header", file, 1);
    const num = (cells: string[], name: string, line: number, required = false): number | null => {
      const i = col(name);
      if (i < 0) return null;
      const raw = cells[i]!.trim();
      if (raw === '' || raw === 'N/A' || raw === 'None') {
        if (required) throw new AdapterError(`${name} is ${raw || 'empty'}`, file, line);
        return null;
      }
      const n = parseNumber(raw);
      if (n === null) throw new AdapterError(`${name} is not a number: "${raw.slice(0, 40)}"`, file, line);
      return n;
    };
    const str = (cells: string[], name: string) => (col(name) >= 0 ? cells[col(name)]!.trim() : null);
    const parsed = rows.map((r) => ({
      line: r.line,
      timestamp: str(r.cells, 'timestamp'),
      gpu_name: str(r.cells, 'gpu_name'),
      num_gpus: num(r.cells, 'num_gpus', r.line),
      batch_size: num(r.cells, 'batch_size', r.line),
      img_size: num(r.cells, 'img_size', r.line),
      avg_train_sps: num(r.cells, 'avg_train_sps', r.line),
      avg_gpu_power_watts: num(r.cells, 'avg_gpu_power_watts', r.line),
      power_limit_watts: num(r.cells, 'power_limit_watts', r.line),
    }));
    const usable = parsed.filter((r) => r.avg_train_sps !== null);
    if (!usable.length) throw new AdapterError('no row with a numeric avg_train_sps', file, rows[0]?.line ?? 1);
    const last = usable[usable.length - 1]!;
    const gpus = last.num_gpus && last.num_gpus > 0 ? last.num_gpus : 1;
    return {
      adapter: 'hpcai-csv',
      units: opts.units ?? this.defaultUnits,
      count: null,
      seconds: null,
      rate: last.avg_train_sps!,
      window: null,
      window_derived: "the CSV has only the benchmark's own average over its run: no window of its own; a sweep uses its run window",
      details: {
        row_line: last.line,
        timestamp: last.timestamp,
        gpu_name: last.gpu_name,
        num_gpus: last.num_gpus,
        batch_size: last.batch_size,
        img_size: last.img_size,
        rate_per_gpu: last.avg_train_sps! / gpus,
        avg_gpu_power_watts: last.avg_gpu_power_watts,
        power_limit_watts: last.power_limit_watts,
        rows: parsed.length > 1 ? parsed : undefined,
        note: 'avg_train_sps is the mean of per-epoch rates after the first epoch, summed over GPUs; the CSV has no count or duration',
      },
    };
  },
};
