// The three ways to the answer "which cap gives the most work per joule, and which caps are as good": the seed
// paper's protocol, a fixed CapLab plan at the same final resolution as the adaptive one, and the adaptive plan,
// whose decisions are made by the very rules the orchestrator calls (src/core/sweep, src/core/analysis/refine.ts).
import { VirtualGpu, type RunResult, type WarmupSpec } from './virtual-lab';
import { seededRandom } from '../../src/core/schedule';
import { selectOptimum, type OptimumPoint } from '../../src/core/analysis/optimum';
import { proposeCaps } from '../../src/core/analysis/refine';
import { proposeRepetitions } from '../../src/core/sweep/adaptive-repetitions';
import { baselineOf, judgeCooldown, type CoolReading } from '../../src/core/sweep/adaptive-cooldown';
import { mean } from '../../src/core/analysis/stats';
import { spanOf } from './span';

export interface Answer {
  protocol: string;
  gpu_s: number;
  runs: number;
  best_cap_w: number | null;
  /** The reported equivalence set: the caps not shown worse than the best (the best alone for the seed protocol). */
  set: number[];
  /** The caps the set stands for: out to half-way to the measured neighbours on each side. */
  span: [number, number] | null;
  windows_settled: number;
  cooldown_s: number;
  /** Where the device time went, s: start-up (process and model init), warm-up, windows, stop (cap, process end), cool-downs and pauses. */
  parts: { start_s: number; warmup_s: number; window_s: number; stop_s: number; cooldown_s: number };
  /** The caps in the order they ran, with each run's window (s) and efficiency: what a cross-check compares. */
  sequence: { cap_w: number; window_s: number; efficiency: number }[];
  /** Runs by pass: the first pass (grid), refinement, sequential repetitions (the fixed plans' repetitions 2-3). */
  passes: { first: number; refinement: number; repetitions: number };
}

export interface Trial {
  preset: string;
  workload: string;
  seed: number;
  /** The simulated device's identity (its part-to-part power offset); 1, the sim backend's default, unless given. */
  device_seed?: number;
}

const MARGIN = 0.02;
const ALPHA = 0.05;
const RANGE = { from: 200, to: 700 };

/** Warm-up of the CapLab plans, s after the first step: past each model's ramp (the sim's warmupEndS, rounded up). */
const WARMUP_S: Record<string, number> = { vit_l_16: 20, resnet50: 12, llama_pretrain: 32 };
/** The fixed plans' window and cool-down; the adaptive plan's upper bounds. */
const WINDOW_S = 60;
const COOLDOWN_S = 60;

function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

function points(results: readonly Measured[]): OptimumPoint[] {
  const caps = [...new Set(results.map((r) => r.cap_w))].sort((a, b) => a - b);
  return caps.map((cap_w) => ({ cap_w, eligible: true, runs: results.filter((r) => r.cap_w === cap_w).map((r) => ({ throughput: r.throughput, efficiency: r.efficiency })) }));
}

function answer(protocol: string, gpu: VirtualGpu, results: RunResult[], cooldown_s: number, single: boolean, passes: Answer['passes'], pool_single = false): Answer {
  const pts = points(results);
  const o = selectOptimum(pts, 'max-efficiency', { margin: MARGIN, alpha: ALPHA, pool_single });
  const sum = (f: (r: RunResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const set = single || !o.indistinguishable_caps ? (o.cap_w === null ? [] : [o.cap_w]) : o.indistinguishable_caps;
  return {
    protocol,
    gpu_s: gpu.clock,
    runs: results.length,
    best_cap_w: o.cap_w,
    set,
    span: spanOf(set, pts.map((p) => p.cap_w)),
    windows_settled: results.filter((r) => r.settled).length,
    cooldown_s,
    parts: {
      start_s: sum((r) => r.start_s),
      warmup_s: sum((r) => r.warmup_s),
      window_s: sum((r) => r.window_s),
      stop_s: sum((r) => r.run_s - r.start_s - r.warmup_s - r.window_s),
      cooldown_s: gpu.clock - sum((r) => r.run_s),
    },
    passes,
    sequence: results.map((r) => ({ cap_w: r.cap_w, window_s: +r.window_s.toFixed(2), efficiency: r.efficiency })),
  };
}

/**
 * The seed paper's protocol (hpc-ai-perf-bench): caps 200-700 W in 100 W steps, once each, a 600 s pause before each
 * cap (PAUSE_SECONDS), the first 50 steps dropped as warm-up (the vision scripts' first epoch); a fixed window: 300 s
 * for the vision models (an assumption: the scripts run a fixed number of epochs), 7.5 M tokens per GPU for LLaMA
 * (the LitGPT config's max_tokens 30 M over 4 GPUs). The answer is the best cap measured.
 */
export function seedProtocol(t: Trial): Answer {
  const gpu = new VirtualGpu(t.preset, t.workload, t.seed, t.device_seed);
  const results: RunResult[] = [];
  const window = t.workload === 'llama_pretrain' ? { units: 7.5e6 } : { seconds: 300 };
  let k = 0;
  for (let cap = RANGE.from; cap <= RANGE.to; cap += 100) {
    gpu.idle(600);
    results.push(gpu.run(cap, k++, { steps: 50 }, window));
  }
  return answer('seed protocol', gpu, results, 600 * results.length, true, { first: results.length, refinement: 0, repetitions: 0 });
}

/** A fixed CapLab plan at the adaptive plan's final resolution: 25 W steps, 3 repetitions in random order, fixed figures. */
export function fixedPlan(t: Trial): Answer {
  const gpu = new VirtualGpu(t.preset, t.workload, t.seed, t.device_seed);
  const rand = seededRandom(t.seed);
  const warmup: WarmupSpec = { seconds: WARMUP_S[t.workload]! };
  const results: RunResult[] = [];
  let k = 0;
  for (let rep = 1; rep <= 3; rep++) {
    const caps: number[] = [];
    for (let cap = RANGE.from; cap <= RANGE.to; cap += 25) caps.push(cap);
    for (const cap of shuffle(caps, rand)) {
      results.push(gpu.run(cap, k++, warmup, { seconds: WINDOW_S }));
      gpu.idle(COOLDOWN_S);
    }
  }
  return answer('fixed CapLab plan', gpu, results, COOLDOWN_S * results.length, false, { first: results.length / 3, refinement: 0, repetitions: (results.length * 2) / 3 });
}

/** The adaptive plan's own figures (plan `caps.adaptive` and `adaptive`). */
export interface AdaptiveSettings {
  refine_runs: number;
  max_per_cap: number;
  /** Sequential repetitions may add at most this many runs (adaptive.budget.runs). */
  budget_runs: number;
  coarse_step_w: number;
  /** adaptive.repetitions.pool_single: caps measured once judged on the pooled spread. */
  pool_single: boolean;
}
export const ADAPTIVE_SETTINGS: AdaptiveSettings = { refine_runs: 8, max_per_cap: 3, budget_runs: 20, coarse_step_w: 100, pool_single: true };
/** A leaner plan: a 125 W coarse grid, 6 refinement runs, 12 repetitions at most. */
export const LEAN_SETTINGS: AdaptiveSettings = { refine_runs: 6, max_per_cap: 3, budget_runs: 12, coarse_step_w: 125, pool_single: true };

/**
 * The adaptive plan: coarse 100 W grid once (random order), golden-section refinement to 25 W (caps.adaptive, at most
 * 8 runs), then sequential repetitions (at most 3 per cap, budget 20 runs) — ADAPTIVE_SETTINGS; adaptive windows (1 % CI target, 10 s
 * minimum, the fixed plan's 60 s as the bound) and cool-downs (5 °C / 20 W of the pre-sweep baseline or flat,
 * the fixed plan's 60 s as the bound).
 */
export function adaptivePlan(t: Trial, o: AdaptiveSettings = ADAPTIVE_SETTINGS, name = 'adaptive plan'): Answer {
  const gpu = new VirtualGpu(t.preset, t.workload, t.seed, t.device_seed);
  const rand = seededRandom(t.seed);
  const warmup: WarmupSpec = { seconds: WARMUP_S[t.workload]! };
  const window = { adaptive: { ci_target: 0.01, min_s: 10 }, max_s: WINDOW_S };
  const coolRule = { temp_band_c: 5, power_band_w: 20, flat_c_per_min: 0.5 };
  const pre: CoolReading[] = [];
  gpu.idle(3, (t, temp_c, power_w) => (pre.push({ t, temp_c, power_w }), false));
  const baseline = baselineOf(pre);
  const results: RunResult[] = [];
  let cooled = 0;
  let k = 0;
  const measure = (cap: number) => {
    results.push(gpu.run(cap, k++, warmup, window));
    const readings: CoolReading[] = [];
    const start = gpu.clock;
    cooled += gpu.idle(COOLDOWN_S, (t, temp_c, power_w) => {
      readings.push({ t, temp_c, power_w });
      return judgeCooldown(readings, baseline, coolRule, t - start, COOLDOWN_S).settled;
    });
  };
  const passes = decideAdaptive(o, (caps, pass) => {
    for (const cap of pass === 'refinement' ? caps : shuffle([...caps], rand)) measure(cap);
    return results;
  });
  return answer(name, gpu, results, cooled, false, passes, o.pool_single);
}

/** One measured run as the decisions see it. */
export type Measured = Pick<RunResult, 'cap_w' | 'throughput' | 'efficiency'>;

/**
 * The adaptive plan's decisions, apart from how runs are measured: the coarse grid, refinement batches while
 * proposeCaps asks for them, then sequential repetition batches while proposeRepetitions does. `measure` runs a
 * batch (in its own order) and returns every run so far; the played sweep measures on the virtual GPU, the
 * cross-check replays the real engine's runs through the same decisions.
 */
export function decideAdaptive(o: AdaptiveSettings, measure: (caps: number[], pass: 'first' | 'refinement' | 'repetitions') => readonly Measured[]): Answer['passes'] {
  const coarse: number[] = [];
  for (let cap = RANGE.from; cap <= RANGE.to; cap += o.coarse_step_w) coarse.push(cap);
  let results = measure(coarse, 'first');
  const limits = { min_w: RANGE.from, max_w: RANGE.to, granularity_w: 1 };
  let refineRuns = 0;
  for (;;) {
    const score = points(results).map((p) => ({ cap_w: p.cap_w, score: mean(p.runs.map((r) => r.efficiency)) }));
    const next = proposeCaps({ points: score, limits, width_w: 25, max_runs: o.refine_runs, runs_used: refineRuns, repetitions: 1, batch: 2 });
    if (next.done) break;
    results = measure([...next.next_caps], 'refinement');
    refineRuns += next.next_caps.length;
  }
  let added = 0;
  for (;;) {
    const p = proposeRepetitions({ points: points(results), selector: 'max-efficiency', margin: MARGIN, alpha: ALPHA, max_per_cap: o.max_per_cap, runs_left: o.budget_runs - added, pool_single: o.pool_single });
    if (p.done) break;
    results = measure(p.runs.map((r) => r.cap_w), 'repetitions');
    added += p.runs.length;
  }
  return { first: coarse.length, refinement: refineRuns, repetitions: added };
}
