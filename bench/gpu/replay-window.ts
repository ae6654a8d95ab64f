// Replays a stored sweep's adaptive-window decisions from what it recorded (power readings, energy-counter
// readings, steps), each run twice: with the counter readings (the rule as run) and with them withheld (the
// power-channel fallback, which is what the window judged on NVML before the counter was read through it).
//   npx tsx bench/gpu/replay-window.ts LAB.db [SWEEP_ID]    (JSON on stdout)
// Readings reach the replay as of each step's time; live, NVML's buffered readings arrive once a second, so a live
// stop can come a step or a second later than the replayed one.
import { openDb } from '../../src/main/lab/store/db';
import { samplesOfRun, metricsOfRun } from '../../src/main/lab/store/samples';
import { AdaptiveWindow, type WindowVerdict } from '../../src/core/sweep/adaptive-window';
import { Plan } from '../../src/shared/plan';

interface RunRow {
  id: number;
  workload: string;
  repetition: number;
  warmup_end: number | null;
  measure_end: number | null;
  gpus: number | null;
  adaptive: string | null;
}

function replay(rule: { ci_target: number; min_s: number }, run: RunRow, planEnd: number, steps: { t: number; units: number; dt: number }[], samples: { device: string; t: number; power_w: number | null; energy_mj: number | null }[]) {
  const w = new AdaptiveWindow(rule, run.warmup_end!);
  let k = 0;
  let v: WindowVerdict | null = null;
  for (const s of steps) {
    if (s.t > planEnd) break;
    for (; k < samples.length && samples[k]!.t <= s.t; k++) w.sample(samples[k]!.device, samples[k]!.t, samples[k]!.power_w, samples[k]!.energy_mj);
    w.step(s.t, s.units, s.dt);
    v = w.judge(s.t);
    if (v.stop) break;
  }
  return v && { stop: v.stop, seconds: v.elapsed_s, throughput_ci: v.throughput_ci, power_ci: v.power_ci, steady: v.steady, reason: v.reason };
}

const [file, sweepArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: replay-window.ts LAB.db [SWEEP_ID]');
  process.exit(2);
}
const db = openDb(file, { readonly: true });
const sweepId = Number(sweepArg ?? 1);
const row = db.prepare('SELECT plan FROM sweeps WHERE id = ?').get(sweepId) as { plan: string } | undefined;
if (!row) throw new Error(`${file}: no sweep ${sweepId}`);
const plan = Plan.parse(JSON.parse(row.plan));
const rule = plan.adaptive?.window;
if (!rule) throw new Error(`${file}: sweep ${sweepId} has no adaptive window`);
const planned = 'seconds' in plan.window ? plan.window.seconds : Infinity;
const runs = db.prepare('SELECT id, workload, repetition, warmup_end, measure_end, gpus, adaptive FROM runs WHERE sweep_id = ? ORDER BY id').all(sweepId) as RunRow[];
const out = runs.flatMap((run) => {
  if (run.warmup_end === null) return [];
  const units = metricsOfRun(db, run.id, 'units');
  const rate = metricsOfRun(db, run.id, 'rate');
  const gpus = run.gpus ?? 1;
  // The step metrics: units of each step event and its rate per GPU, so dt = units / (rate * gpus).
  const steps = units.map((u, i) => ({ t: u.t, units: u.value, dt: u.value / (rate[i]!.value * gpus) }));
  const devices = db.prepare('SELECT device_id, d.device_key FROM run_devices JOIN devices d ON d.id = device_id WHERE run_id = ?').all(run.id) as { device_id: number; device_key: string }[];
  const samples = devices
    .flatMap((d) => samplesOfRun(db, run.id, d.device_id).map((s) => ({ device: d.device_key, t: s.t, power_w: s.power_w, energy_mj: s.energy_mj })))
    .sort((a, b) => a.t - b.t);
  const counters = samples.filter((s) => s.power_w === null && s.energy_mj !== null);
  const inWindow = counters.filter((s) => s.t >= run.warmup_end! && s.t <= (run.measure_end ?? Infinity));
  const gaps = inWindow.slice(1).map((s, i) => s.t - inWindow[i]!.t);
  const end = run.warmup_end + planned;
  return [
    {
      run_id: run.id,
      workload: run.workload,
      repetition: run.repetition,
      live: run.adaptive ? (JSON.parse(run.adaptive) as { window?: unknown }).window ?? null : null,
      steps_in_window: steps.filter((s) => s.t > run.warmup_end! && s.t <= (run.measure_end ?? Infinity)).length,
      counter_readings_in_window: inWindow.length,
      counter_read_gap_s: gaps.length ? { median: gaps.sort((a, b) => a - b)[gaps.length >> 1], max: gaps[gaps.length - 1] } : null,
      with_counter: replay(rule, run, end, steps, samples),
      power_readings_only: replay(rule, run, end, steps, samples.filter((s) => s.power_w !== null).map((s) => ({ ...s, energy_mj: null }))),
    },
  ];
});
console.log(JSON.stringify({ file, sweep_id: sweepId, rule, planned_window_s: planned, runs: out }, null, 1));
