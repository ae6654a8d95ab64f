// `npx tsx bench/time-to-answer/index.ts [trials]`: GPU time to a confident best cap (issue 28) on the simulated
// H100 and H200, three workloads, 20 seeded trials each: the adaptive plan against the seed paper's protocol and a
// fixed CapLab plan of the same final resolution, and how often each answer holds the true best cap. GPU time is
// simulated device time (runs, pauses, cool-downs), not wall time. Records bench/results/time-to-answer-DATE.{md,json}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine } from '../harness';
import { adaptivePlan, fixedPlan, LEAN_SETTINGS, seedProtocol, type Answer, type Trial } from './protocols';
import { VirtualGpu } from './virtual-lab';
import { insideSpan } from './span';

const TRIALS = Number(process.argv[2] ?? 20);
const PRESETS = ['h100-sxm', 'h200'];
const WORKLOADS = ['vit_l_16', 'llama_pretrain', 'resnet50'];

/** The noise-free best cap at 1 W, and the efficiency there. */
function truth(preset: string, workload: string): { cap_w: number; efficiency: number; at: (c: number) => number } {
  const gpu = new VirtualGpu(preset, workload, 1);
  let best = { cap_w: 200, efficiency: -Infinity };
  for (let c = 200; c <= 700; c++) {
    const e = gpu.trueEfficiency(c);
    if (e > best.efficiency) best = { cap_w: c, efficiency: e };
  }
  return { ...best, at: (c) => gpu.trueEfficiency(c) };
}

interface Row {
  preset: string;
  workload: string;
  true_cap_w: number;
  protocols: Record<
    string,
    {
      gpu_h_median: number;
      gpu_h: number[];
      correct: number;
      loss_pct_median: number;
      span_w_median: number;
      runs_median: number;
      settled_share: number;
      cooldown_h_median: number;
      /** Mean over the trials, h: where the device time went. */
      parts_h_mean: Answer['parts'];
      /** Mean runs per sweep by pass. */
      passes_mean: Answer['passes'];
    }
  >;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Field by field mean of records of numbers, each divided by `unit`. */
function meanOf<T extends Record<string, number>>(xs: readonly T[], unit = 1): T {
  const out: Record<string, number> = {};
  for (const k of Object.keys(xs[0]!)) out[k] = +(xs.reduce((s, x) => s + x[k]!, 0) / xs.length / unit).toFixed(4);
  return out as T;
}

const L = 'adaptive plan (lean)';
const rows: Row[] = [];
const started = performance.now();
for (const preset of PRESETS) {
  for (const workload of WORKLOADS) {
    const tr = truth(preset, workload);
    const by: Record<string, Answer[]> = {};
    for (let k = 1; k <= TRIALS; k++) {
      const trial: Trial = { preset, workload, seed: k };
      for (const a of [seedProtocol(trial), fixedPlan(trial), adaptivePlan(trial), adaptivePlan(trial, LEAN_SETTINGS, L)]) (by[a.protocol] ??= []).push(a);
    }
    const protocols: Row['protocols'] = {};
    for (const [name, answers] of Object.entries(by)) {
      const correct = answers.filter((a) => insideSpan(tr.cap_w, a.span)).length;
      protocols[name] = {
        gpu_h_median: median(answers.map((a) => a.gpu_s / 3600)),
        gpu_h: answers.map((a) => +(a.gpu_s / 3600).toFixed(4)),
        correct,
        loss_pct_median: median(answers.map((a) => (a.best_cap_w === null ? 100 : (1 - tr.at(a.best_cap_w) / tr.efficiency) * 100))),
        span_w_median: median(answers.map((a) => (a.span ? a.span[1] - a.span[0] : NaN))),
        runs_median: median(answers.map((a) => a.runs)),
        settled_share: answers.reduce((s, a) => s + a.windows_settled, 0) / answers.reduce((s, a) => s + a.runs, 0),
        cooldown_h_median: median(answers.map((a) => a.cooldown_s / 3600)),
        parts_h_mean: meanOf(answers.map((a) => a.parts), 3600),
        passes_mean: meanOf(answers.map((a) => a.passes)),
      };
    }
    rows.push({ preset, workload, true_cap_w: tr.cap_w, protocols });
    process.stderr.write(`${preset} ${workload}: done\n`);
  }
}
const wall = (performance.now() - started) / 1000;

const m = machine();
const A = 'adaptive plan';
const S = 'seed protocol';
const F = 'fixed CapLab plan';
const ratio = (r: Row, other: string, a = A) => r.protocols[a]!.gpu_h_median / r.protocols[other]!.gpu_h_median;
const pass = (r: Row, a = A) => ratio(r, S, a) <= 0.2 && ratio(r, F, a) <= 0.5 && r.protocols[a]!.correct >= Math.max(r.protocols[S]!.correct, r.protocols[F]!.correct);
const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const lines = [
  `# Time to an answer — ${m.date}`,
  '',
  `Simulated GPUs (CapLab's sim model and noise, played in simulated time by \`bench/time-to-answer\`); GPU time is simulated device time.`,
  `Machine: ${m.host}, ${m.cpu}, ${m.cores} cores, Node ${m.node}, load average ${m.load_1m} at the end; ${TRIALS} seeded trials per row, ${wall.toFixed(0)} s wall for the whole table.`,
  '',
  'Correct: the true best cap (noise-free model, 1 W steps) lies in the caps the reported set stands for (out to half-way to the measured neighbours). Loss: true efficiency given up at the reported best cap.',
  '',
  '| GPU | workload | true best | protocol | GPU time (median, h) | runs | cool-down (h) | windows settled | correct | set spans (W) | loss (%) | adaptive / this | lean / this |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.flatMap((r) =>
    [S, F, A, L].map((p) => {
      const x = r.protocols[p]!;
      const vs = (a: string) => (p === A || p === L ? (p === a ? (pass(r, a) ? 'goal met' : 'goal NOT met') : '') : f(ratio(r, p, a), 3));
      return `| ${r.preset} | ${r.workload} | ${r.true_cap_w} W | ${p} | ${f(x.gpu_h_median)} | ${x.runs_median} | ${f(x.cooldown_h_median)} | ${(x.settled_share * 100).toFixed(0)} % | ${x.correct}/${TRIALS} | ${f(x.span_w_median, 0)} | ${f(x.loss_pct_median)} | ${vs(A)} | ${vs(L)} |`;
    }),
  ),
  '',
  'Where the adaptive plans\' device time goes (mean per sweep over the trials): start-up is the process and model init before the first step, stop the cap change and process end (2 s a run); runs by pass.',
  '',
  '| GPU | workload | protocol | start-up (h) | warm-up (h) | windows (h) | stop (h) | cool-downs (h) | first pass | refinement | repetitions | window a run (s) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.flatMap((r) =>
    [A, L].map((p) => {
      const { parts: x, passes: n } = { parts: r.protocols[p]!.parts_h_mean, passes: r.protocols[p]!.passes_mean };
      const runs = n.first + n.refinement + n.repetitions;
      return `| ${r.preset} | ${r.workload} | ${p} | ${f(x.start_s, 3)} | ${f(x.warmup_s, 3)} | ${f(x.window_s, 3)} | ${f(x.stop_s, 3)} | ${f(x.cooldown_s, 3)} | ${f(n.first, 1)} | ${f(n.refinement, 1)} | ${f(n.repetitions, 1)} | ${f((x.window_s * 3600) / runs, 1)} |`;
    }),
  ),
  '',
  `Goal (issue 28): adaptive / seed <= 0.2, adaptive / fixed <= 0.5, adaptive correct at least as often as both. Met in ${rows.filter((r) => pass(r)).length} of ${rows.length} rows (lean: ${rows.filter((r) => pass(r, L)).length}).`,
];
console.log(lines.join('\n'));
mkdirSync('bench/results', { recursive: true });
const stamp = m.date.slice(0, 10);
writeFileSync(join('bench/results', `time-to-answer-${stamp}.md`), lines.join('\n') + '\n');
writeFileSync(join('bench/results', `time-to-answer-${stamp}.json`), JSON.stringify({ machine: m, trials: TRIALS, wall_s: wall, rows }, null, 2) + '\n');
