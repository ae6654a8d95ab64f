import { z } from 'zod';
import { BackendChoice } from './device';
import { ParamValue } from './workload';

const positive = z.number().positive();

/**
 * Hard bounds of a plan, checked arithmetically before any grid is expanded (docs/reliability.md): a plan beyond
 * them is refused at once, with the number it would have made.
 */
export const PLAN_LIMITS = {
  /** Runs of one plan: workloads x caps x repetitions, plus what adaptive refinement may add. */
  max_runs: 10_000,
  max_cap_w: 100_000,
  min_cap_step_w: 0.01,
  max_workloads: 64,
  max_devices: 64,
  max_warmup_s: 6 * 3600,
  max_window_s: 24 * 3600,
  max_steps: 10_000_000,
  max_cooldown_s: 3600,
  max_hang_timeout_s: 24 * 3600,
  max_run_timeout_s: 48 * 3600,
  /** A node's power besides its GPUs (CPUs, memory, fans): far below a megawatt, as caps are. */
  max_overhead_w: 100_000,
} as const;

const watts = positive.max(PLAN_LIMITS.max_cap_w, `at most ${PLAN_LIMITS.max_cap_w} W`);
const capStep = z.number().min(PLAN_LIMITS.min_cap_step_w, `a step of at least ${PLAN_LIMITS.min_cap_step_w} W`);

/** How many caps a range names, without listing them (a 1e15-step range is counted, never expanded). */
export function rangeCount(r: { from: number; to: number; step: number }): number {
  return Math.floor((r.to - r.from) / r.step + 1e-9) + 1;
}

export const CapRange = z
  .object({ from: watts, to: watts, step: capStep })
  .refine((r) => r.to >= r.from, { message: 'caps.to must be >= caps.from' });
export type CapRange = z.infer<typeof CapRange>;

export const AdaptiveCaps = z.object({
  adaptive: z.object({
    /** Coarse grid to start from. */
    from: watts,
    to: watts,
    step: capStep,
    /** Stop when the best cap is known to within this many watts. */
    width_w: positive.default(25),
    /** Most runs the refinement may add. */
    max_runs: z.number().int().positive().max(PLAN_LIMITS.max_runs).default(12),
  }),
});

const CAPS_FORMS = 'a list of watts ([250, 300]), a range ({from: 200, to: 700, step: 50}) or {adaptive: {from, to, step}}';

/** The form the input was meant as decides which form's error is shown (zod alone says only "Invalid input"). */
function capsError(iss: { input?: unknown; errors?: { path: PropertyKey[]; message: string }[][] }): string {
  const input = iss.input;
  const form = Array.isArray(input) ? 0 : input && typeof input === 'object' ? ('adaptive' in input ? 2 : 1) : -1;
  const inner = form >= 0 ? iss.errors?.[form]?.[0] : undefined;
  if (inner) return `${inner.path.length ? `at ${inner.path.map(String).join('.')}: ` : ''}${inner.message} (caps are ${CAPS_FORMS})`;
  return `must be ${CAPS_FORMS}; got ${JSON.stringify(input)?.slice(0, 60) ?? typeof input}`;
}

export const CapsSpec = z.union([z.array(watts).min(1).max(PLAN_LIMITS.max_runs), CapRange, AdaptiveCaps], { error: capsError });
export type CapsSpec = z.infer<typeof CapsSpec>;

/** Warm-up and measurement windows are given in seconds or in workload steps. */
function span(maxSeconds: number) {
  return z.union([
    z.object({ seconds: positive.max(maxSeconds, `at most ${maxSeconds} s`) }).strict(),
    z.object({ steps: z.number().int().positive().max(PLAN_LIMITS.max_steps, `at most ${PLAN_LIMITS.max_steps} steps`) }).strict(),
  ]);
}
export const Span = span(PLAN_LIMITS.max_window_s);
export type Span = z.infer<typeof Span>;

export const WorkloadRef = z.object({
  id: z.string().min(1),
  params: z.record(z.string(), ParamValue).default({}),
  /** native (default) or a container runtime. */
  runtime: z.enum(['native', 'docker', 'podman', 'apptainer']).default('native'),
});
export type WorkloadRef = z.infer<typeof WorkloadRef>;

export const SimOptions = z
  .object({
    /** Simulated time runs this many times faster than wall time. */
    speedup: z.number().min(1).max(1000).default(1),
    /** Presets of the simulated devices, one per device (see `caplab devices --backend sim`). */
    devices: z.array(z.string()).optional(),
  })
  .strict();

/**
 * Adaptive measurement (issue 28): stop measuring, cooling down and repeating once the answer is settled, within the
 * plan's own figures as upper bounds. Each part is off unless named; `adaptive: {}` turns on none of them.
 */
export const AdaptiveOptions = z
  .object({
    /**
     * A run's window ends once throughput and power are steady and their 95 % CI half-widths (of batch means) are at
     * most `ci_target` of their means; the plan's window is the upper bound, and the window never ends before `min_s`
     * nor before the steady-state test has its 50 steps and 50 power samples.
     */
    window: z
      .object({
        ci_target: z.number().positive().max(0.5).default(0.01),
        min_s: positive.max(PLAN_LIMITS.max_window_s).default(10),
      })
      .strict()
      .optional(),
    /**
     * The next run starts once the devices have settled: temperature within `temp_band_c` and power within
     * `power_band_w` of their pre-sweep baseline, or both flat (temperature changing by less than `flat_c_per_min`),
     * checked every `check_s`; the plan's cooldown_s is the upper bound.
     */
    cooldown: z
      .object({
        temp_band_c: z.number().positive().max(50).default(5),
        power_band_w: z.number().positive().max(1000).default(20),
        flat_c_per_min: z.number().positive().max(60).default(0.5),
        check_s: positive.max(60).default(2),
      })
      .strict()
      .optional(),
    /**
     * Sequential repetitions: after the first pass, repetitions only at caps whose place in the selector's
     * equivalence set (within `margin` of the best, at `confidence`) is undecided, until it is decided, a cap has
     * `max_per_cap` repetitions, or the budget is spent. Each batch of added runs is shuffled (seeded).
     */
    repetitions: z
      .object({
        max_per_cap: z.number().int().min(2).max(100).default(5),
        /**
         * A cap measured once is judged on the run-to-run spread pooled over the caps with repetitions (it assumes
         * the caps spread alike), so a cap far from the best is not repeated to be shown worse; the first batch is
         * the best cap and its neighbours. false: every cap of the first pass is repeated once before any is judged.
         */
        pool_single: z.boolean().default(true),
      })
      .strict()
      .optional(),
    /** Practical margin of "as good as the best cap", a fraction of the best score. */
    margin: z.number().positive().max(0.5).default(0.02),
    /** Family-wise confidence of the equivalence statements (1 - alpha). */
    confidence: z.number().min(0.5).max(0.999).default(0.95),
    /** Most the adaptivity may spend: device seconds of the whole sweep, runs added by sequential repetitions. */
    budget: z
      .object({
        gpu_s: positive.optional(),
        runs: z.number().int().positive().max(PLAN_LIMITS.max_runs).optional(),
      })
      .strict()
      .default({}),
  })
  .strict();
export type AdaptiveOptions = z.infer<typeof AdaptiveOptions>;

/** How `caplab cluster submit` splits a plan into Slurm array tasks (one task per shard, each on a node of its own). */
export const ClusterOptions = z
  .object({
    /** node: every node runs the whole plan (node-to-node comparison); caps: a task per cap; repetitions: a task per repetition. */
    shard_by: z.enum(['node', 'caps', 'repetitions']).default('node'),
  })
  .strict();
export type ClusterOptions = z.infer<typeof ClusterOptions>;

export const Plan = z
  .object({
    name: z.string().max(200).default('sweep'),
    backend: BackendChoice.default('auto'),
    /** Device indexes the workload uses; one process group over all of them. */
    devices: z
      .array(z.number().int().nonnegative())
      .min(1)
      .max(PLAN_LIMITS.max_devices)
      .refine((d) => new Set(d).size === d.length, { message: 'a device is listed twice' })
      .default([0]),
    workloads: z.array(WorkloadRef).min(1).max(PLAN_LIMITS.max_workloads),
    caps: CapsSpec,
    repetitions: z.number().int().min(1).max(100).default(1),
    order: z.enum(['sequential', 'randomized']).default('sequential'),
    seed: z.number().int().default(1),
    warmup: span(PLAN_LIMITS.max_warmup_s).default({ seconds: 10 }),
    window: span(PLAN_LIMITS.max_window_s).default({ seconds: 30 }),
    cooldown_s: z.number().min(0).max(PLAN_LIMITS.max_cooldown_s).default(5),
    sample_interval_ms: z.number().min(10).max(10_000).default(100),
    /**
     * How samples are taken: `buffered` wakes once a second and takes the readings the driver buffered since (NVML's
     * power sample buffer; far cheaper than a wake-up per sample), `poll` reads the sensors every interval, `auto`
     * buffers where the backend can and polls elsewhere.
     */
    sample_mode: z.enum(['auto', 'buffered', 'poll']).default('auto'),
    overhead_w: z.number().min(0).max(PLAN_LIMITS.max_overhead_w, `at most ${PLAN_LIMITS.max_overhead_w} W`).default(100),
    observe_only: z.boolean().default(false),
    on_failure: z.enum(['continue', 'stop']).default('continue'),
    /** A run that shows no progress (no protocol step) for this many wall-clock seconds is killed as hung. */
    hang_timeout_s: positive.max(PLAN_LIMITS.max_hang_timeout_s).default(120),
    /** Hard limit on one run's wall-clock time, seconds. */
    run_timeout_s: positive.max(PLAN_LIMITS.max_run_timeout_s).default(3600),
    sim: SimOptions.default({ speedup: 1 }),
    /** Cluster sweeps only (`caplab cluster submit`); a local sweep ignores it. */
    cluster: ClusterOptions.optional(),
    /** Adaptive window, cool-down and sequential repetitions (AdaptiveOptions); absent: every figure is fixed. */
    adaptive: AdaptiveOptions.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const runs = planRunCount(p);
    if (runs > PLAN_LIMITS.max_runs) {
      ctx.addIssue({
        code: 'custom',
        path: ['caps'],
        message: `the plan would make ${!Number.isFinite(runs) ? 'infinitely many' : runs < 1e9 ? runs.toLocaleString('en-US') : runs.toExponential(1)} runs (workloads x caps x repetitions${'adaptive' in p.caps ? ' + adaptive max_runs' : ''}${p.adaptive?.repetitions ? ' + sequential repetitions' : ''}); a plan may have at most ${PLAN_LIMITS.max_runs.toLocaleString('en-US')}`,
      });
    }
  });
export type Plan = z.infer<typeof Plan>;
export type PlanInput = z.input<typeof Plan>;

/** Runs a plan can make, counted without expanding anything (Infinity for an unbounded range). */
export function planRunCount(p: { workloads: readonly unknown[]; caps: CapsSpec; repetitions: number; adaptive?: AdaptiveOptions | undefined }): number {
  const caps = p.caps;
  const count = Array.isArray(caps) ? caps.length : rangeCount('adaptive' in caps ? caps.adaptive : caps);
  const extra = Array.isArray(caps) || !('adaptive' in caps) ? 0 : caps.adaptive.max_runs;
  return p.workloads.length * count * p.repetitions + extra + sequentialRunBudget(p, count + extra);
}

/**
 * Runs sequential repetitions may add: the plan's budget.runs, else enough to bring every cap (of the grid and of the
 * refinement) to max_per_cap repetitions; 0 without `adaptive.repetitions`.
 */
export function sequentialRunBudget(p: { workloads: readonly unknown[]; repetitions: number; adaptive?: AdaptiveOptions | undefined }, caps: number): number {
  const seq = p.adaptive?.repetitions;
  if (!seq) return 0;
  const room = p.workloads.length * caps * Math.max(0, seq.max_per_cap - p.repetitions);
  return p.adaptive!.budget.runs !== undefined ? Math.min(p.adaptive!.budget.runs, room) : room;
}

/** Caps a plan names explicitly (the coarse grid for adaptive plans), ascending, without duplicates. */
export function planCaps(caps: CapsSpec): number[] {
  let list: number[];
  if (Array.isArray(caps)) list = caps;
  else {
    const r = 'adaptive' in caps ? caps.adaptive : caps;
    const n = rangeCount(r);
    if (!(n <= PLAN_LIMITS.max_runs)) throw new Error(`caps: a range of ${n} caps is over the limit of ${PLAN_LIMITS.max_runs}`);
    list = Array.from({ length: n }, (_, k) => Math.round((r.from + k * r.step) * 1000) / 1000);
  }
  return [...new Set(list)].sort((a, b) => a - b);
}

/** One planned run: a workload at a cap, repetition r (1-based). */
export const PlannedRun = z.object({
  workload: z.string(),
  cap_w: z.number(),
  repetition: z.number().int().min(1),
  order: z.number().int().min(0),
  /** Why the run is done ("first pass", "refinement: …", "repetition 3, deciding whether …"); absent: as planned. */
  reason: z.string().optional(),
});
export type PlannedRun = z.infer<typeof PlannedRun>;
