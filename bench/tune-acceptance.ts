// The acceptance of `caplab tune` on simulated GPUs (issue 27): for ViT-L/16 and LLaMA-3 8B on the simulated H100
// and H200, 20 seeded trials of a one-hour (simulated, sped-up) job run by the real CLI in a pty, each checked
// against the simulation's true curve (caps whose true efficiency is within the margin of the true best: the
// equivalence set a sweep with enough repetitions converges to) and against the equivalence set an offline sweep of the
// same simulated job measures (bench/time-to-answer's fixed CapLab plan, seeded K), the profiling share, and the reported saving
// against the saving measured by running the same job (same job seed) held at the default limit.
// `npx tsx bench/tune-acceptance.ts [TRIALS] [SPEEDUP] [PRESETS] [JOBS]` (JOBS trials at once, default 1: on a machine with cores
// to spare; each trial is two processes) writes bench/results/tune-acceptance-<date>[-PRESETS].{md,json},
// rewritten after every trial (a run cut short keeps what it measured, and says how many trials that was).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../test/helpers/cli';
import { tempDir } from '../test/helpers/tmp';
import { labEnv } from '../test/helpers/lab-env';
import { simJob, tuneArgs } from '../test/helpers/tune-job';
import { machine } from './harness';
import { operatingPoint } from '../src/core/sim/model';
import { findPreset } from '../src/core/sim/presets';
import { findWorkload, resolveParams } from '../src/core/sim/workloads';
import type { TuneReport } from '../src/main/lab/tune/session';
import { fixedPlan } from './time-to-answer/protocols';
import { insideSpan } from './time-to-answer/span';

const TRIALS = Number(process.argv[2] ?? 20);
const SPEEDUP = Number(process.argv[3] ?? 100);
const PRESETS = process.argv[4]?.split(',') ?? ['h100-sxm', 'h200'];
const JOBS = Math.max(1, Number(process.argv[5] ?? 1));
// CAPLAB_BENCH_PAIRED=1: each trial's saving against a default-limit run of its own, run beside it (two jobs a trial).
const PAIRED = process.env.CAPLAB_BENCH_PAIRED === '1';
const MARGIN = 0.02;
const OVERHEAD_W = 100;
const JOB_SEED = 11;

/** True steady-state efficiency (units per joule of GPU + 100 W overhead) per watt of cap, and the step time at the default limit. */
function truth(presetId: string, workloadId: string) {
  const preset = findPreset(presetId)!;
  const workload = findWorkload(workloadId)!;
  const params = resolveParams(workload, {});
  const at = (cap: number) => operatingPoint({ preset, load: { workload, params, elapsed_s: 1e4 }, cap_w: cap, temp_c: 60 });
  const eff = (cap: number) => {
    const op = at(cap);
    return op.throughput / (op.power_w + OVERHEAD_W);
  };
  let best = preset.limits.min_w;
  for (let c = preset.limits.min_w; c <= preset.limits.max_w; c++) if (eff(c) > eff(best)) best = c;
  const set: number[] = [];
  for (let c = preset.limits.min_w; c <= preset.limits.max_w; c++) if (eff(c) >= (1 - MARGIN) * eff(best)) set.push(c);
  return { eff, best, set: [Math.min(...set), Math.max(...set)] as [number, number], stepS: at(preset.limits.default_w).step_s!, defaultW: preset.limits.default_w };
}

interface Trial {
  seed: number;
  cap_held_w: number | null;
  inside: boolean;
  sweep_best_w: number | null;
  sweep_set_w: number[];
  sweep_span_w: [number, number] | null;
  inside_sweep: boolean;
  loss_vs_true_best: number;
  hold_reason: string | null;
  visits: number;
  profiling_share: number;
  profiling_s: number;
  job_s: number;
  reported_saving_j: number | null;
  reported_ci: [number, number] | null;
  measured_saving_j: number | null;
  /** The same to the session's end (the tail after the last step included), as the bench measured before. */
  measured_saving_with_tail_j: number | null;
  saving_within: boolean;
  wall_s: number;
}

type Combo = { preset: string; workload: string; true_best_w: number; true_set_w: [number, number]; steps: number; default_energy_j: number | null; trials: Trial[] };

interface Setup {
  combo: Combo;
  t: ReturnType<typeof truth>;
  env: NodeJS.ProcessEnv;
  job: string[];
  def: TuneReport;
}

/** The GPU and workload's default-limit run (the saving's reference), before any trial. */
async function setup(dir: string, preset: string, workload: string, out: Combo[]): Promise<Setup> {
  const t = truth(preset, workload);
  // An hour of work at the default limit (the tune trials take a little longer: their caps are slower).
  const steps = Math.round(3600 / t.stepS);
  const env = labEnv(join(dir, `${preset}-${workload}`), 'lab');
  const job = simJob(env, workload, ['--max-steps', String(steps), '--seed', String(JOB_SEED)]);
  const base = await runCli([...tuneArgs(preset, SPEEDUP, ['--hold', String(t.defaultW)]), '--', ...job], env);
  if (base.code !== 0) throw new Error(`${preset} ${workload} default run: ${base.stderr.slice(-2000)}`);
  const def = JSON.parse(base.stdout) as TuneReport;
  const combo: Combo = { preset, workload, true_best_w: t.best, true_set_w: t.set, steps, default_energy_j: def.energy_of_steps_j, trials: [] };
  out.push(combo);
  return { combo, t, env, job, def };
}

async function trial({ combo: c, t, def }: Setup, k: number): Promise<void> {
  const { preset, workload } = c;
  // Each trial on a host of its own (fresh simulated card, lease and journal): trials may run side by side.
  const env = labEnv(join(tmp.dir, `${preset}-${workload}-t${k}`), 'lab');
  const job = simJob(env, workload, ['--max-steps', String(c.steps), '--seed', String(JOB_SEED)]);
  const started = Date.now();
  // The saving is measured against the same job held at the default limit beside it, on a host of its own: a sped-up
  // simulated job's clock slips with the machine's load, so a reference run at another time carries another slip.
  const refEnv = labEnv(join(tmp.dir, `${preset}-${workload}-t${k}-ref`), 'lab');
  const refJob = simJob(refEnv, workload, ['--max-steps', String(c.steps), '--seed', String(JOB_SEED)]);
  const [r, ref] = await Promise.all([
    runCli([...tuneArgs(preset, SPEEDUP, ['--seed', String(k)]), '--', ...job], env),
    PAIRED ? runCli([...tuneArgs(preset, SPEEDUP, ['--hold', String(t.defaultW)]), '--', ...refJob], refEnv) : null,
  ]);
  if (r.code !== 0) throw new Error(`${preset} ${workload} trial ${k}: ${r.stderr.slice(-2000)}`);
  if (ref && ref.code !== 0) throw new Error(`${preset} ${workload} trial ${k} reference: ${ref.stderr.slice(-2000)}`);
  const base = ref ? (JSON.parse(ref.stdout) as TuneReport) : def;
  const rep = JSON.parse(r.stdout) as TuneReport;
  const held = rep.cap_held_w;
  // The same work's energy at the default limit minus the trial's, first step to last: the tail after the last step
  // (the exit, the restore) is CapLab's latency times the speed-up here, not the job's (kept apart as with_tail).
  const measured = base.energy_of_steps_j !== null && rep.energy_of_steps_j !== null ? base.energy_of_steps_j - rep.energy_of_steps_j : null;
  const withTail = base.energy_after_first_step_j !== null && rep.energy_after_first_step_j !== null ? base.energy_after_first_step_j - rep.energy_after_first_step_j : null;
  const s = rep.savings?.saved_j ?? null;
  // The offline sweep of trial K plays the card the CLI's sim backend simulates (the plan's default seed, 1).
  const sweep = fixedPlan({ preset, workload, seed: k, device_seed: 1 });
  c.trials.push({
    seed: k,
    cap_held_w: held,
    inside: held !== null && held >= t.set[0] && held <= t.set[1],
    sweep_best_w: sweep.best_cap_w,
    sweep_set_w: sweep.set,
    sweep_span_w: sweep.span,
    inside_sweep: held !== null && insideSpan(held, sweep.span),
    loss_vs_true_best: held !== null ? 1 - t.eff(held) / t.eff(t.best) : 1,
    hold_reason: rep.hold_reason,
    visits: rep.visits.length,
    profiling_share: rep.profiling_s / 3600,
    profiling_s: rep.profiling_s,
    job_s: rep.job_seconds,
    reported_saving_j: s?.value ?? null,
    reported_ci: s?.ci ?? null,
    measured_saving_j: measured,
    measured_saving_with_tail_j: withTail,
    saving_within: s !== null && measured !== null && measured >= s.ci[0] && measured <= s.ci[1],
    wall_s: (Date.now() - started) / 1000,
  });
  process.stderr.write(`${preset} ${workload} trial ${k}: held ${held} W (true set ${t.set.join('-')} W, offline sweep ${sweep.span?.join('-')} W), profiling ${rep.profiling_s.toFixed(0)} s, saving ${s?.value.toFixed(0)} [${s?.ci.map((x) => x.toFixed(0)).join(', ')}] vs measured ${measured?.toFixed(0)}\n`);
}

/** Runs fn over items, at most n at once, in the items' order. */
async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

const tmp = tempDir('caplab-tune-bench-');
const started = Date.now();
const out: Combo[] = [];
function record(): void {
  const m = machine();
  const rows = out.map((c) => {
    const n = c.trials.length;
    const inside = c.trials.filter((x) => x.inside).length;
    const insideSweep = c.trials.filter((x) => x.inside_sweep).length;
    const spans = [...new Set(c.trials.map((x) => (x.sweep_span_w ? x.sweep_span_w.join('-') : 'none')))].join(', ');
    const maxShare = Math.max(...c.trials.map((x) => x.profiling_share));
    const within = c.trials.filter((x) => x.saving_within).length;
    const caps = c.trials.map((x) => x.cap_held_w).join(', ');
    return `| ${c.preset} | ${c.workload} | ${c.true_best_w} | ${c.true_set_w.join('-')} | ${inside}/${n} | ${insideSweep}/${n} | ${spans} | ${(maxShare * 100).toFixed(1)} % | ${within}/${n} | ${caps} |`;
  });
  const md = [
    `# caplab tune acceptance on simulated GPUs — ${m.date}`,
    '',
    `Machine: ${m.host}, ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${JOBS} trial(s) at once, load average ${m.load_1m} when last written; ${((Date.now() - started) / 60000).toFixed(1)} min wall so far; ${out.reduce((a, c) => a + c.trials.length, 0)} trials recorded (${TRIALS} asked per GPU and workload).`,
    `Each trial: \`caplab tune --backend sim --sim-speedup ${SPEEDUP} --seed K -- caplab sim-workload ... --max-steps N --seed ${JOB_SEED}\` (N = one hour of work at the default limit),`,
    'selector max-efficiency, margin 2 %, max profile share 10 % of 3,600 s, node overhead 100 W. The true set is every watt whose true',
    'steady efficiency is within 2 % of the true best (the simulation model, no noise). The measured saving is the same job held at the default',
    `limit (\`--hold 700\`, same job seed) minus the trial, both from the start of the first step to the end of the last (the tail after it, while CapLab restores the limit, is the session's latency times the speed-up: left out of the estimate and of this measure alike); ${PAIRED ? 'the default-limit run is each trial\'s own, run beside it' : 'one default-limit run per GPU and workload, before the trials'}.`,
    'Offline sweep set: trial K is also swept offline on the same simulated card (the sim backend\'s seed 1) by the fixed CapLab plan of',
    'bench/time-to-answer (200-700 W in 25 W steps, 3 repetitions in random order seeded K, warm-up 20 s ViT / 32 s LLaMA, 60 s windows, 60 s',
    'cool-downs, played in simulated time with the sim model and noise), its equivalence set for max-efficiency at 2 % (selectOptimum, alpha',
    '0.05) standing for the caps out to half-way to the measured neighbours; the held cap counts as inside when it lies in that span, ends included.',
    '',
    '| GPU | workload | true best W | true 2 % set W | held inside true set | held inside offline sweep set | offline sweep spans (W) | max profiling share | measured saving inside reported 95 % interval | caps held |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
  mkdirSync('bench/results', { recursive: true });
  const stamp = `${m.date.slice(0, 10)}${process.argv[4] ? `-${PRESETS.join('+')}` : ''}`;
  writeFileSync(`bench/results/tune-acceptance-${stamp}.md`, md + '\n');
  writeFileSync(`bench/results/tune-acceptance-${stamp}.json`, JSON.stringify({ machine: m, speedup: SPEEDUP, trials: TRIALS, jobs_at_once: JOBS, paired_reference: PAIRED, combos: out }, null, 2) + '\n');
}

try {
  const setups: Setup[] = [];
  const pairs = PRESETS.flatMap((preset) => ['vit_l_16', 'llama_pretrain'].map((workload) => ({ preset, workload })));
  await pool(pairs, JOBS, async ({ preset, workload }) => void setups.push(await setup(tmp.dir, preset, workload, out)));
  // Trial K on every GPU and workload before trial K + 1: a run cut short keeps about the same number of trials per row.
  const order = (x: Setup) => pairs.findIndex((p) => p.preset === x.combo.preset && p.workload === x.combo.workload);
  setups.sort((a, b) => order(a) - order(b));
  out.sort((a, b) => pairs.findIndex((p) => p.preset === a.preset && p.workload === a.workload) - pairs.findIndex((p) => p.preset === b.preset && p.workload === b.workload));
  const tasks = Array.from({ length: TRIALS }, (_, i) => setups.map((x) => ({ x, k: i + 1 }))).flat();
  await pool(tasks, JOBS, async ({ x, k }) => {
    await trial(x, k);
    x.combo.trials.sort((a, b) => a.seed - b.seed);
    record();
  });
  record();
  console.log(readFileSync(`bench/results/tune-acceptance-${machine().date.slice(0, 10)}${process.argv[4] ? `-${PRESETS.join('+')}` : ''}.md`, 'utf8'));
} finally {
  tmp.cleanup();
}
