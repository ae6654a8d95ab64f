/**
 * Turns bench/gpu/sampler_cost.py's output (OUT/summary.json + OUT/cost.tar.gz unpacked) into
 * bench/results/h200-sampler-cost.json: CPU per 1,000 samples of every sampler, and the energy of each CapLab
 * sampler's readings over each phase-A window against the NVML energy counter (CapLab's own windowEnergy).
 *
 *   npx tsx bench/gpu/analyze-cost.ts SUMMARY.json COST_DIR [--json bench/results/h200-sampler-cost.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Sample } from '../../src/shared/device';
import { windowEnergy } from '../../src/core/analysis/energy';
import Database from 'better-sqlite3';
import type { Db } from '../../src/main/lab/store/db';
import { readSamples, streamsOf } from '../../src/main/lab/store/sample-blocks';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { json: { type: 'string' } } });
const [summaryPath, dir] = positionals as [string, string];

interface Summary {
  /** recorders: absent when phase A was skipped (--skip-phase-a). */
  meta: Record<string, unknown> & { recorders?: Record<string, string[]> };
  marks: { name: string; t: number; energy_mj: number }[];
  phase_a: { t1?: number; t2?: number; rows?: Record<string, { cpu_s: number; samples: number; seconds: number; cpu_s_per_1000: number | null }> };
  sweeps: Record<string, unknown>[];
}
const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as Summary;
const mark = (name: string) => summary.marks.find((m) => m.name === name);
const round = (x: number | null | undefined, d = 3) => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10 ** d) / 10 ** d);

const windows = [
  { name: 'idle before load', a: 'idle0_start', b: 'load_start' },
  { name: 'loaded (PyTorch ResNet-50 training)', a: 'load_start', b: 'load_end' },
  { name: 'idle after load', a: 'load_end', b: 'idle1_end' },
  { name: 'first 5 s after load', a: 'load_end', b: 'idle1_5' },
  { name: 'whole phase A', a: 'idle0_start', b: 'idle1_end' },
];

const series: Record<string, Sample[]> = {};
for (const key of Object.keys(summary.meta.recorders ?? {})) {
  series[key] = readFileSync(join(dir, `${key}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Sample);
}

const energy = windows.filter((w) => mark(w.a) && mark(w.b)).map((w) => {
  const a = mark(w.a)!;
  const b = mark(w.b)!;
  const counterJ = (b.energy_mj - a.energy_mj) / 1000;
  const row: Record<string, unknown> = { window: w.name, seconds: round(b.t - a.t, 2), counter_j: round(counterJ, 1), counter_mean_w: round(counterJ / (b.t - a.t), 1) };
  for (const [key, s] of Object.entries(series)) {
    const r = windowEnergy(s, { start: a.t, end: b.t }, { prefer: ['instant'] });
    row[key] = r.energy_j === null ? { error: r.reason } : { energy_j: round(r.energy_j, 1), error_pct: round(((r.energy_j - counterJ) / counterJ) * 100, 3), samples: r.samples };
  }
  return row;
});

const coverage: Record<string, unknown> = {};
for (const [key, s] of Object.entries(series)) {
  const ts = s.map((x) => x.t).filter((t) => t >= summary.phase_a.t1! && t <= summary.phase_a.t2!);
  const gaps = ts.slice(1).map((t, i) => (t - ts[i]!) * 1000).sort((x, y) => x - y);
  const q = (p: number) => round(gaps[Math.min(gaps.length - 1, Math.round(p * (gaps.length - 1)))] ?? null, 1);
  const nulls = (f: keyof Sample) => s.filter((x) => x[f] === null).length;
  coverage[key] = { interval_ms_p1: q(0.01), interval_ms_p50: q(0.5), interval_ms_p99: q(0.99), interval_ms_max: q(1), duplicate_t: ts.length - new Set(ts).size, null_fields: { sm_clock_mhz: nulls('sm_clock_mhz'), temp_c: nulls('temp_c'), util_gpu: nulls('util_gpu'), limit_w: nulls('limit_w'), throttle_reasons: nulls('throttle_reasons'), mem_used_mb: nulls('mem_used_mb') } };
}

// Each sweep's own database: its instant series over the run's window with CapLab's windowEnergy, against the counter
// readings the sweep took at the window edges (what the sweep reports as the run's energy).
const sweepEnergy = summary.sweeps.map((sw) => {
  // sampler_cost.py names a sweep MODE-MS[-VARIANT...] (older runs: MODE-MS[-prof]).
  const variants = Array.isArray(sw.variants) ? (sw.variants as string[]) : sw.profiled ? ['prof'] : [];
  const tag = [String(sw.mode), String(sw.interval_ms), ...variants].join('-');
  const db = new Database(join(dir, `sweep-${tag}.db`), { readonly: true });
  try {
    const run = db.prepare('select id, sweep_id, measure_start as a, measure_end as b, energy_j from runs order by id limit 1').get() as { id: number; sweep_id: number; a: number; b: number; energy_j: number };
    const rows = readSamples(db as unknown as Db, streamsOf(db as unknown as Db, { sweep_id: run.sweep_id })[0]!.stream_id, run.a - 60, run.b + 60)
      .filter((x) => x.power_kind === 'instant' || x.power_kind === 'counter')
      .map((x) => ({ ...x, device_id: 'nvml:0' })) as Sample[];
    const counters = rows.filter((r) => r.power_kind === 'counter');
    const counterJ = (counters[counters.length - 1]!.energy_mj! - counters[0]!.energy_mj!) / 1000;
    const inst = windowEnergy(rows, { start: counters[0]!.t, end: counters[counters.length - 1]!.t }, { prefer: ['instant'] });
    return { sweep: tag, window_s: round(run.b - run.a, 2), energy_j_reported: round(run.energy_j, 1), counter_j: round(counterJ, 1), instant_series_j: round(inst.energy_j, 1), instant_vs_counter_pct: round(((inst.energy_j! - counterJ) / counterJ) * 100, 3), counter_edge_offsets_s: [round(counters[0]!.t - run.a, 4), round(counters[counters.length - 1]!.t - run.b, 4)] };
  } finally {
    db.close();
  }
});

let calls: unknown;
try {
  calls = JSON.parse(readFileSync(join(dir, 'calls.json'), 'utf8'));
} catch {
  calls = null;
}
const result = {
  machine: readFileSync(join(dir, 'machine.txt'), 'utf8'),
  meta: summary.meta,
  cost_phase_a: Object.fromEntries(Object.entries(summary.phase_a.rows ?? {}).map(([k, r]) => [k, { ...r, cpu_s: round(r.cpu_s, 2), seconds: round(r.seconds, 1), cpu_s_per_1000: round(r.cpu_s_per_1000, 4) }])),
  energy,
  coverage,
  sweeps: summary.sweeps,
  sweep_energy: sweepEnergy,
  nvml_call_cost: calls,
  marks: summary.marks,
};
const out = JSON.stringify(result, null, 2);
if (values.json) writeFileSync(values.json, out + '\n');
console.log(out);
