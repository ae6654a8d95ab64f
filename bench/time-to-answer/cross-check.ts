// `npx tsx bench/time-to-answer/cross-check.ts [workload] [preset]`: the adaptive plan of the time-to-answer bench run
// by the real engine (orchestrator, workload processes in ptys, SQLite, the sim backend sped up), beside the
// virtual lab's figure for the same plan and seed: how far the played sweeps are from a real (simulated) one.
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { tempDir } from '../../test/helpers/tmp';
import { ADAPTIVE_SETTINGS, adaptivePlan, decideAdaptive, type Measured } from './protocols';

const workload = process.argv[2] ?? 'resnet50';
const preset = process.argv[3] ?? 'h100-sxm';
/** Process start-up is wall time: at a high speed-up it becomes minutes of simulated time, so keep it low. */
const speedup = Number(process.argv[4] ?? 20);
const warmup: Record<string, number> = { vit_l_16: 20, resnet50: 12, llama_pretrain: 32 };
const tmp = tempDir('caplab-tta-');
const env = { ...process.env, CAPLAB_SIM_STATE_DIR: join(tmp.dir, 'sim'), CAPLAB_DATA_DIR: tmp.dir, CAPLAB_LEASE_DIR: join(tmp.dir, 'leases'), CAPLAB_LEASE_NS: `tta-${process.pid}` };
const engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env });
try {
  const sweep = await engine.beginSweep({
    name: 'time-to-answer cross-check',
    backend: 'sim',
    workloads: [{ id: workload }],
    caps: { adaptive: { from: 200, to: 700, step: 100, width_w: 25, max_runs: 8 } },
    order: 'randomized',
    seed: 1,
    warmup: { seconds: warmup[workload]! },
    window: { seconds: 60 },
    cooldown_s: 60,
    adaptive: { window: { ci_target: 0.01, min_s: 10 }, cooldown: { temp_band_c: 5, power_band_w: 20, check_s: 1 }, repetitions: { max_per_cap: 3 }, budget: { runs: 20 } },
    sim: { speedup, devices: [preset] },
  });
  const status = await sweep.done;
  const a = await engine.analyzeSweep({ sweep_id: sweep.sweepId });
  const best = a.groups[0]!.optima['max-efficiency'];
  const virtual = adaptivePlan({ preset, workload, seed: 1 });
  const { runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
  // Run by run: the cap, its window and efficiency in each, and where the two first part (a different window or
  // value changes what the sequential rule decides next).
  const eff = new Map(a.runs.map((r) => [r.run_id, r.efficiency]));
  const ran = [...runs].filter((r) => r.started_at !== null).sort((x, y) => x.started_at! - y.started_at!);
  const sequence = ran.map((r, k) => {
    const v = virtual.sequence[k];
    const e = eff.get(r.id) ?? null;
    return { cap_w: r.cap_w, played_cap_w: v?.cap_w ?? null, window_s: +(r.measure_end! - r.measure_start!).toFixed(2), played_window_s: v?.window_s ?? null, efficiency_rel_diff: e !== null && v ? +(e / v.efficiency - 1).toFixed(5) : null, reason: r.reason };
  });
  const sum = (f: (r: (typeof runs)[number]) => number | null | undefined) => +(runs.reduce((s, r) => s + (f(r) ?? 0), 0) / 3600).toFixed(3);
  // Where the engine's device time goes: start to warm-up end (process start-up, init, warm-up), window, stop, cool-down.
  const parts = {
    to_warmup_end_h: sum((r) => r.warmup_end! - r.started_at!),
    window_h: sum((r) => r.measure_end! - r.measure_start!),
    stop_h: sum((r) => r.ended_at! - r.measure_end!),
    cooldown_h: sum((r) => r.adaptive?.cooldown?.waited_s),
  };
  // The same decisions: the engine's own measured runs replayed through the bench's decision code (decideAdaptive,
  // the rules the driver calls). Each proposed batch must be the engine's next batch, cap for cap (its order is the
  // engine's own shuffle); the first mismatch ends the comparison.
  const byId = new Map(a.runs.map((r) => [r.run_id, r]));
  const taken: Measured[] = [];
  const mismatches: string[] = [];
  let cursor = 0;
  decideAdaptive(ADAPTIVE_SETTINGS, (caps, pass) => {
    const batch = mismatches.length ? [] : ran.slice(cursor, cursor + caps.length);
    const want = [...caps].sort((x, y) => x - y).join(', ');
    const got = batch.map((r) => r.cap_w).sort((x, y) => x - y).join(', ');
    if (!mismatches.length && want !== got) mismatches.push(`${pass} after ${cursor} runs: the rule proposes ${want} W, the engine ran ${got || 'nothing'} W`);
    cursor += batch.length;
    for (const r of batch) taken.push({ cap_w: r.cap_w, throughput: byId.get(r.id)?.throughput ?? NaN, efficiency: byId.get(r.id)?.efficiency ?? NaN });
    return taken;
  });
  if (!mismatches.length && cursor < ran.length) mismatches.push(`the rule stops after ${cursor} runs, the engine ran ${ran.length}`);
  const replay = { same_decisions: mismatches.length === 0, runs_replayed: cursor, engine_runs: ran.length, mismatches };
  console.log(
    JSON.stringify(
      {
        preset,
        workload,
        status,
        speedup,
        engine: { ...parts, runs: a.adaptive!.runs, gpu_h: +(a.adaptive!.gpu_s / 3600).toFixed(3), windows_settled: a.adaptive!.windows_settled, best_cap_w: best.cap_w, set: best.indistinguishable_caps },
        replay,
        sequence,
        virtual_lab: { runs: virtual.runs, gpu_h: +(virtual.gpu_s / 3600).toFixed(3), windows_settled: virtual.windows_settled, best_cap_w: virtual.best_cap_w, set: virtual.set },
      },
      null,
      1,
    ),
  );
} finally {
  await engine.close();
  tmp.cleanup();
}
