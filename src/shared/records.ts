import { z } from 'zod';
import { Plan } from './plan';
import { Sample } from './device';

export const RunStatus = z.enum(['pending', 'running', 'done', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatus>;
export const SweepStatus = z.enum(['running', 'done', 'failed', 'cancelled', 'interrupted']);
export type SweepStatus = z.infer<typeof SweepStatus>;

/** What an adaptive plan (plan `adaptive`) decided for one run. */
export const RunAdaptive = z.object({
  /** The adaptive window: where it ended and why; planned_s is the plan's window (the upper bound). */
  window: z
    .object({
      settled: z.boolean(),
      seconds: z.number(),
      planned_s: z.number().nullable(),
      throughput_ci: z.number().nullable(),
      power_ci: z.number().nullable(),
      reason: z.string(),
    })
    .optional(),
  /** The cool-down after the run: what was waited, against the plan's cooldown_s, and how it ended. */
  cooldown: z
    .object({
      waited_s: z.number(),
      planned_s: z.number(),
      how: z.enum(['baseline', 'flat', 'bound', 'cancelled']),
      reason: z.string(),
    })
    .optional(),
});
export type RunAdaptive = z.infer<typeof RunAdaptive>;

/** One run as stored and as printed by `caplab sweep --json` / `caplab runs --json`. Per-GPU figures are means over the run's devices. */
export const RunRecord = z.object({
  id: z.number().int(),
  sweep_id: z.number().int(),
  workload: z.string(),
  cap_w: z.number(),
  repetition: z.number().int(),
  order: z.number().int(),
  status: RunStatus,
  exit_code: z.number().int().nullable(),
  error: z.string().nullable(),
  started_at: z.number().nullable(),
  ended_at: z.number().nullable(),
  warmup_end: z.number().nullable(),
  measure_start: z.number().nullable(),
  measure_end: z.number().nullable(),
  units: z.string().nullable(),
  /** Work units per second per GPU over the measurement window (computed: src/core/analysis/figures.ts). */
  throughput: z.number().nullable(),
  /** Mean power per GPU over the measurement window, W (computed). */
  mean_power_w: z.number().nullable(),
  /** GPU energy over the measurement window, summed over the run's GPUs, J (measured). */
  energy_j: z.number().nullable(),
  /**
   * Work units per joule of node energy: GPUs + measured CPU where every CPU package was measured, else GPUs + the
   * plan's node overhead (computed, the same definition as `caplab analyze` with its defaults).
   */
  efficiency: z.number().nullable(),
  /** Sensor the energy came from. */
  energy_sensor: z.string().nullable(),
  enforced_limit_w: z.number().nullable(),
  /** Work units done in the window over all GPUs (measured). */
  units_in_window: z.number().nullable().default(null),
  /** GPUs the run measured. */
  gpus: z.number().int().nullable().default(null),
  /** CPU package energy over the window where every package was measured (RAPL), J. */
  cpu_energy_j: z.number().nullable().default(null),
  /** Where the node energy of `efficiency` came from. */
  node_energy_source: z.enum(['measured-cpu', 'overhead']).nullable().default(null),
  /** Why the run was done: first pass, refinement, a sequential repetition (null: a run of the plan as written). */
  reason: z.string().nullable().default(null),
  /** What the adaptive plan decided for the run (null without plan `adaptive`). */
  adaptive: RunAdaptive.nullable().default(null),
});
export type RunRecord = z.infer<typeof RunRecord>;

export const SweepRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  status: SweepStatus,
  host: z.string(),
  backend: z.string(),
  simulated: z.boolean(),
  created_at: z.number(),
  finished_at: z.number().nullable(),
  plan: Plan,
  error: z.string().nullable(),
  run_count: z.number().int(),
  runs_done: z.number().int(),
  /** What of the recorded plan this CapLab could not read (a plan from an earlier release); empty normally. */
  plan_notes: z.array(z.string()).default([]),
  /** The user's tags and notes (History page, `setSweepNotes`); empty until set. */
  tags: z.array(z.string()).default([]),
  notes: z.string().default(''),
  /** Distinct model names of the GPUs its runs measured, sorted; empty before a run recorded a device. */
  gpu_models: z.array(z.string()).default([]),
  /** A tuning session's end report as `caplab tune` printed it; null for a sweep and a session that did not end. */
  tune_report: z.string().nullable().default(null),
});
export type SweepRecord = z.infer<typeof SweepRecord>;

export const CapRestore = z.object({
  device_id: z.string(),
  device_name: z.string(),
  before_w: z.number(),
  was_w: z.number().nullable(),
  restored_w: z.number().nullable(),
  ok: z.boolean(),
  error: z.string().nullable(),
});
export type CapRestore = z.infer<typeof CapRestore>;

/** A time series for plots: parallel arrays, possibly decimated (min/max per bucket). */
export const Series = z.object({
  t: z.array(z.number()),
  v: z.array(z.number().nullable()),
});
export type Series = z.infer<typeof Series>;

export const RunTraces = z.object({
  run_id: z.number().int(),
  devices: z.array(z.object({ device_id: z.string(), power_w: Series, sm_clock_mhz: Series, temp_c: Series, limit_w: Series })),
  throughput: Series,
});
export type RunTraces = z.infer<typeof RunTraces>;

export const LiveSamples = z.object({ sweep_id: z.number().int(), run_id: z.number().int().nullable(), samples: z.array(Sample) });
export type LiveSamples = z.infer<typeof LiveSamples>;
