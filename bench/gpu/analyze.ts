/**
 * Turns the H200 run's raw files (bench/gpu/h200_run.py -> h200.tar.gz, unpacked) into the numbers of
 * bench/results/h200-sensors.{json,md} and the unit-test capture test/fixtures/h200-capture.csv.
 *
 *   npx tsx bench/gpu/analyze.ts DIR [--json bench/results/h200-sensors.json] [--fixture test/fixtures/h200-capture.csv]
 *
 * Energy per window is computed with CapLab's own analysis (src/core/analysis/energy.ts windowEnergy) from the
 * recorded samples, by sensor kind, against the NVML energy counter read by a separate process at the boundaries.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Sample } from '../../src/shared/device';
import { windowEnergy } from '../../src/core/analysis/energy';
import { parseNvTimestamp } from '../../src/main/lab/gpu/nvidia-smi';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { json: { type: 'string' }, fixture: { type: 'string' } } });
const dir = positionals[0] ?? '.';

interface Mark {
  name: string;
  t: number;
  t_before: number;
  t_after: number;
  energy_mj: number;
}
interface Marks {
  source: string;
  marks: Mark[];
  cpu: Record<string, { t1: number; t2: number; cpu1: Record<string, number>; cpu2: Record<string, number> }>;
  meta: Record<string, unknown>;
}

const read = (f: string) => readFileSync(join(dir, f), 'utf8');
const marks = JSON.parse(read('marks.json')) as Marks;
const M = (name: string) => {
  const m = marks.marks.find((x) => x.name === name);
  if (!m) throw new Error(`mark ${name} missing`);
  return m;
};
const jsonl = (f: string): Sample[] =>
  read(f)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Sample);

const rec: Record<string, Sample[]> = { '100': jsonl('rec100.jsonl'), '10': jsonl('rec10.jsonl') };
let buffered: Sample[] = [];
try {
  buffered = jsonl('vbuf.jsonl');
} catch {
  buffered = [];
}

// nvidia-smi with the seed paper's query: power.draw is the 1 s average on Hopper.
const smi: Sample[] = [];
for (const line of read('smi.csv').split('\n')) {
  const c = line.split(',').map((x) => x.trim());
  const t = parseNvTimestamp(c[0] ?? '');
  const p = Number(c[5]);
  if (t === null || !Number.isFinite(p)) continue;
  smi.push({ device_id: 'smi:0', t, power_w: p, power_kind: 'average', power_avg_w: null, energy_mj: null, sm_clock_mhz: Number(c[6]), mem_clock_mhz: Number(c[7]), temp_c: Number(c[9]), util_gpu: Number(c[8]), util_mem: null, mem_used_mb: null, limit_w: null, throttle_reasons: null });
}
const loopRows = read('loop.csv')
  .split('\n')
  .filter((l) => /^\d/.test(l))
  .map((l) => l.split(',').map(Number));

const round = (x: number | null, d = 3) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 10 ** d) / 10 ** d);
const pctl = (xs: number[], p: number) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round((p / 100) * (s.length - 1)))]!;
};

interface WindowDef {
  name: string;
  a: string;
  b: string;
}
const windows: WindowDef[] = [
  { name: 'idle before (load off)', a: 'idle0_start', b: 'load_start' },
  { name: 'loaded (PyTorch training)', a: 'load_start', b: 'load_end' },
  { name: 'idle after load', a: 'load_end', b: 'idle1_end' },
  { name: 'first 5 s after load', a: 'load_end', b: 'idle1_5' },
  { name: 'idle after, from 5 s on', a: 'idle1_5', b: 'idle1_end' },
];

const methods: { key: string; series: () => Sample[]; opts: Parameters<typeof windowEnergy>[2] }[] = [
  { key: 'caplab_100ms_instant', series: () => rec['100']!, opts: { prefer: ['instant'] } },
  { key: 'caplab_10ms_instant', series: () => rec['10']!, opts: { prefer: ['instant'] } },
  { key: 'caplab_100ms_average_lag_corrected', series: () => rec['100']!, opts: { prefer: ['average'] } },
  { key: 'caplab_100ms_average_raw', series: () => rec['100']!, opts: { prefer: ['average'], average_lag_s: 0 } },
  { key: 'nvidia_smi_power_draw_100ms_raw', series: () => smi, opts: { prefer: ['average'], average_lag_s: 0 } },
  ...(buffered.length ? [{ key: 'caplab_driver_buffer_1s_wakes', series: () => buffered, opts: { prefer: ['instant' as const] } }] : []),
];

const has = (name: string) => marks.marks.some((x) => x.name === name);
const energy = windows.filter((w) => has(w.a) && has(w.b)).map((w) => {
  const a = M(w.a);
  const b = M(w.b);
  const counterJ = (b.energy_mj - a.energy_mj) / 1000;
  const win = { start: a.t, end: b.t };
  const row: Record<string, unknown> = { window: w.name, from: w.a, to: w.b, seconds: round(b.t - a.t, 2), counter_j: round(counterJ, 1), counter_mean_w: round(counterJ / (b.t - a.t), 1) };
  for (const m of methods) {
    const r = windowEnergy(m.series(), win, m.opts);
    row[m.key] = r.energy_j === null ? { error: r.reason } : { energy_j: round(r.energy_j, 1), error_pct: round(((r.energy_j - counterJ) / counterJ) * 100, 3), samples: r.samples };
  }
  return row;
});

// CPU cost per 1,000 samples between the two /proc snapshots.
const inRange = (ts: number[], t1: number, t2: number) => ts.filter((t) => t >= t1 && t <= t2).length;
const A = marks.cpu.phase_a!;
const B = marks.cpu.phase_b!;
const costRow = (label: string, cpu: number, n: number, seconds: number) => ({ sampler: label, cpu_s: round(cpu, 2), samples: n, seconds: round(seconds, 1), cpu_s_per_1000_samples: round((cpu / n) * 1000, 4), cpu_percent_of_one_core: round((cpu / seconds) * 100, 2) });
const fileOf = (key: string) => ({ caplab100: 'rec100', caplab10: 'rec10' })[key] ?? key;
const summaries: Record<string, Record<string, unknown>> = {};
const recorderTimes: Record<string, number[]> = {};
for (const key of Object.keys(A.cpu1)) {
  if (key === 'nvidia-smi') continue;
  const f = fileOf(key);
  try {
    summaries[key] = JSON.parse(read(`${f}.summary.json`)) as Record<string, unknown>;
  } catch {
    console.error(`no summary for ${key}: skipped`);
    continue;
  }
  recorderTimes[key] = f === 'rec100' ? rec['100']!.map((s) => s.t) : f === 'rec10' ? rec['10']!.map((s) => s.t) : jsonl(`${f}.jsonl`).map((s) => s.t);
}
const csvTimes = (f: string) =>
  read(f)
    .split('\n')
    .filter((l) => /^\d/.test(l))
    .map((l) => Number(l.split(',')[0]));
const cost = [
  ...Object.keys(recorderTimes).map((key) =>
    costRow(`CapLab ${String(summaries[key]!.label)} (whole Node process)`, A.cpu2[key]! - A.cpu1[key]!, inRange(recorderTimes[key]!, A.t1, A.t2), A.t2 - A.t1),
  ),
  costRow('nvidia-smi -lms 100, seed paper query', A.cpu2['nvidia-smi']! - A.cpu1['nvidia-smi']!, inRange(smi.map((s) => s.t), A.t1, A.t2), A.t2 - A.t1),
  costRow(`Python NVML loop @100 ms incl. energy counter (${marks.source})`, B.cpu2['nvml-loop']! - B.cpu1['nvml-loop']!, inRange(loopRows.map((r) => r[0]!), B.t1, B.t2), B.t2 - B.t1),
  ...(B.cpu1['sleep-loop'] !== undefined
    ? [costRow('Python sleep loop @100 ms, no NVML (wake-up floor)', B.cpu2['sleep-loop']! - B.cpu1['sleep-loop']!, inRange(csvTimes('sleep.csv'), B.t1, B.t2), B.t2 - B.t1)]
    : []),
];

const jitterOf = (ts: number[], nominalMs: number) => {
  const d = ts.slice(1).map((t, i) => Math.abs((t - ts[i]!) * 1000 - nominalMs));
  return { interval_error_ms_p50: round(pctl(d, 50), 3), interval_error_ms_p99: round(pctl(d, 99), 3), max: round(pctl(d, 100), 3) };
};
const jitter: Record<string, unknown> = {};
for (const [key, ts] of Object.entries(recorderTimes)) {
  const sm = summaries[key]!;
  jitter[String(sm.label)] = { ...jitterOf(ts, Number(sm.interval_ms)), tick_late_ms: sm.late_ms, skipped_ticks: sm.skipped };
}
jitter['nvidia-smi -lms 100'] = jitterOf(smi.map((s) => s.t), 100);
jitter['python NVML loop 100 ms'] = jitterOf(loopRows.map((r) => r[0]!), 100);

let devices: unknown;
try {
  devices = JSON.parse(read('devices.json').split('\n# stderr')[0]!);
} catch {
  devices = read('devices.json');
}
let calls: unknown;
try {
  calls = JSON.parse(read('calls.json'));
} catch {
  calls = null;
}

// Sensor behaviour seen in the capture: distinct instant-power values and their spacing at 10 ms.
const r10 = rec['10']!;
const changes: number[] = [];
for (let i = 1; i < r10.length; i++) if (r10[i]!.power_w !== r10[i - 1]!.power_w) changes.push(r10[i]!.t);
const changeGaps = changes.slice(1).map((t, i) => (t - changes[i]!) * 1000);

const result = {
  machine: read('machine.txt'),
  meta: marks.meta,
  python_nvml: marks.source,
  devices,
  nvml_call_cost: calls,
  instant_power_change_interval_ms_at_10ms: { p50: round(pctl(changeGaps, 50), 2), p10: round(pctl(changeGaps, 10), 2), p90: round(pctl(changeGaps, 90), 2) },
  energy,
  cost,
  caplab_self_reported: summaries,
  jitter,
  marks: marks.marks,
};
const out = JSON.stringify(result, null, 2);
if (values.json) writeFileSync(values.json, out + '\n');
console.log(out);

// The test fixture: one minute of the 100 ms capture around the end of the load, with the counter readings in it.
if (values.fixture) {
  const end = M('load_end').t;
  const a = end - 30;
  const b = end + 30;
  const t0 = Math.floor(a);
  const lines = [
    '# CapLab NVML capture on an NVIDIA H200 (observe only): 100 ms samples around the end of a PyTorch training load.',
    `# Recorded ${new Date(end * 1000).toISOString()} by bench/gpu/h200_run.py; t is seconds since ${t0} (epoch).`,
    '# Energy-counter readings (nvmlDeviceGetTotalEnergyConsumption, separate process) as: # counter,<name>,<t>,<energy_mj>',
    ...marks.marks.filter((m) => m.t >= a - 0.01 && m.t <= b + 0.01).map((m) => `# counter,${m.name},${(m.t - t0).toFixed(4)},${m.energy_mj}`),
    't,power_w,power_kind,power_avg_w,sm_clock_mhz,mem_clock_mhz,temp_c,util_gpu,util_mem,mem_used_mb,limit_w,throttle_reasons',
    ...rec['100']!.filter((s) => s.t >= a && s.t <= b).map((s) =>
      [(s.t - t0).toFixed(4), s.power_w, s.power_kind, s.power_avg_w, s.sm_clock_mhz, s.mem_clock_mhz, s.temp_c, s.util_gpu, s.util_mem, s.mem_used_mb, s.limit_w, s.throttle_reasons].map((v) => (v === null ? '' : String(v))).join(','),
    ),
  ];
  writeFileSync(values.fixture, lines.join('\n') + '\n');
}
