import { z } from 'zod';
import { BackendChoice } from './device';
import { ParamValue } from './workload';

const positive = z.number().positive();

export const CapRange = z
  .object({ from: positive, to: positive, step: positive })
  .refine((r) => r.to >= r.from, { message: 'caps.to must be >= caps.from' });
export type CapRange = z.infer<typeof CapRange>;

export const AdaptiveCaps = z.object({
  adaptive: z.object({
    /** Coarse grid to start from. */
    from: positive,
    to: positive,
    step: positive,
    /** Stop when the best cap is known to within this many watts. */
    width_w: positive.default(25),
    /** Most runs the refinement may add. */
    max_runs: z.number().int().positive().default(12),
  }),
});

export const CapsSpec = z.union([z.array(positive).min(1), CapRange, AdaptiveCaps]);
export type CapsSpec = z.infer<typeof CapsSpec>;

/** Warm-up and measurement windows are given in seconds or in workload steps. */
export const Span = z.union([
  z.object({ seconds: positive }).strict(),
  z.object({ steps: z.number().int().positive() }).strict(),
]);
export type Span = z.infer<typeof Span>;

export const WorkloadRef = z.object({
  id: z.string().min(1),
  params: z.record(z.string(), ParamValue).default({}),
  /** native (default) or a container runtime. */
  runtime: z.enum(['native', 'docker', 'podman', 'apptainer']).default('native'),
});
export type WorkloadRef = z.infer<typeof WorkloadRef>;

export const SimOptions = z.object({
  /** Simulated time runs this many times faster than wall time. */
  speedup: z.number().min(1).max(1000).default(1),
  /** Presets of the simulated devices, one per device (see `caplab devices --backend sim`). */
  devices: z.array(z.string()).optional(),
});

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
    name: z.string().default('sweep'),
    backend: BackendChoice.default('auto'),
    /** Device indexes the workload uses; one process group over all of them. */
    devices: z.array(z.number().int().nonnegative()).min(1).default([0]),
    workloads: z.array(WorkloadRef).min(1),
    caps: CapsSpec,
    repetitions: z.number().int().min(1).max(100).default(1),
    order: z.enum(['sequential', 'randomized']).default('sequential'),
    seed: z.number().int().default(1),
    warmup: Span.default({ seconds: 10 }),
    window: Span.default({ seconds: 30 }),
    cooldown_s: z.number().min(0).default(5),
    sample_interval_ms: z.number().min(10).max(10_000).default(100),
    overhead_w: z.number().min(0).default(100),
    observe_only: z.boolean().default(false),
    on_failure: z.enum(['continue', 'stop']).default('continue'),
    /** A run that shows no progress (no protocol step) for this many wall-clock seconds is killed as hung. */
    hang_timeout_s: positive.default(120),
    /** Hard limit on one run's wall-clock time, seconds. */
    run_timeout_s: positive.default(3600),
    sim: SimOptions.default({ speedup: 1 }),
    /** Cluster sweeps only (`caplab cluster submit`); a local sweep ignores it. */
    cluster: ClusterOptions.optional(),
  })
  .strict();
export type Plan = z.infer<typeof Plan>;
export type PlanInput = z.input<typeof Plan>;

/** Caps a plan names explicitly (the coarse grid for adaptive plans), ascending, without duplicates. */
export function planCaps(caps: CapsSpec): number[] {
  let list: number[];
  if (Array.isArray(caps)) list = caps;
  else {
    const r = 'adaptive' in caps ? caps.adaptive : caps;
    list = [];
    for (let c = r.from; c <= r.to + 1e-9; c += r.step) list.push(Math.round(c * 1000) / 1000);
  }
  return [...new Set(list)].sort((a, b) => a - b);
}

/** One planned run: a workload at a cap, repetition r (1-based). */
export const PlannedRun = z.object({
  workload: z.string(),
  cap_w: z.number(),
  repetition: z.number().int().min(1),
  order: z.number().int().min(0),
});
export type PlannedRun = z.infer<typeof PlannedRun>;
