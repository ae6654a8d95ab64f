import { z } from 'zod';
import { Selector } from './analysis';
import { BackendChoice } from './device';

/** The tuner's defaults, shared by `caplab tune`'s flags and the app's "Tune a job" page (fractions, seconds). */
export const TUNE_OPTION_DEFAULTS = {
  margin: 0.02,
  max_profile_share: 0.1,
  job_seconds: 3600,
  rate_timeout_s: 600,
  hang_timeout_s: 300,
  overhead_w: 100,
} as const;

const distinct = (list: readonly number[]) => new Set(list).size === list.length;

/**
 * A tuning session to start from the app (startTune): what `caplab tune [options] -- CMD ARG...` takes, as fields.
 * The job is an argv array, never a shell string; percentages are fractions here (the CLI's --margin 2 is 0.02).
 */
export const TuneStart = z
  .object({
    argv: z.array(z.string().min(1, 'an argument may not be empty').max(4096)).min(1, 'give the job to run: the command, then its arguments').max(1000),
    /** The folder the job runs in (absolute; a relative `file` is read from it too); absent: the engine's own. */
    cwd: z.string().min(1).max(4096).optional(),
    /** Device indexes capped together (one cap for the job's GPUs). */
    devices: z.array(z.number().int().min(0).max(1023)).min(1).max(64).refine(distinct, 'list each device once').default([0]),
    selector: Selector.default('max-efficiency'),
    /**
     * The caps to profile: watts, or `--caps`'s text (FROM:TO:STEP or a list, read by the engine as the CLI reads
     * it); null: a coarse grid over the device's range.
     */
    caps: z
      .union([z.array(z.number().positive().max(100_000)).min(2, 'give at least two caps to compare').max(40), z.string().trim().min(1).max(1000)])
      .nullable()
      .default(null),
    /** A throughput adapter by name, or auto; absent: regex when a pattern is given, else auto. */
    adapter: z.string().min(1).max(64).optional(),
    /** Read progress from this file instead of the job's output. */
    file: z.string().min(1).max(4096).nullable().default(null),
    pattern: z.string().min(1).max(1000).nullable().default(null),
    units: z.string().min(1).max(64).nullable().default(null),
    margin: z.number().gt(0).max(1).default(TUNE_OPTION_DEFAULTS.margin),
    max_profile_share: z.number().gt(0).max(1).default(TUNE_OPTION_DEFAULTS.max_profile_share),
    /** Expected job length, backend seconds (`--job-seconds`): the profiling budget is a share of it. */
    job_seconds: z.number().positive().max(1e8).default(TUNE_OPTION_DEFAULTS.job_seconds),
    /** Hold this cap without profiling (`--hold`). */
    hold_w: z.number().positive('the cap to hold is more than 0 W').max(100_000).nullable().default(null),
    seed: z.number().int('the seed is a whole number').default(1),
    overhead_w: z.number().min(0).max(10_000).default(TUNE_OPTION_DEFAULTS.overhead_w),
    rate_timeout_s: z.number().positive('the wait for a rate is more than 0 s').max(1e6).default(TUNE_OPTION_DEFAULTS.rate_timeout_s),
    hang_timeout_s: z.number().positive('the hang time-out is more than 0 s').max(1e6).default(TUNE_OPTION_DEFAULTS.hang_timeout_s),
    /** The engine's backend when absent (the host's --backend, else auto). */
    backend: BackendChoice.optional(),
    /** Simulated GPUs only: how much faster than real time their clock runs, and their presets. */
    sim_speedup: z.number().positive().max(1000).default(1),
    sim_devices: z.array(z.string().min(1).max(64)).min(1).max(64).optional(),
  })
  .strict();
export type TuneStart = z.infer<typeof TuneStart>;

/** A device's journalled limit of a killed session, and what became of it (the cap journal's row). */
export const TuneRestore = z.object({
  device_name: z.string(),
  /** The limit before the session, journalled before the first change. */
  before_w: z.number(),
  /** Wall-clock seconds; null while the row is open (not restored yet). */
  restored_at: z.number().nullable(),
  /** The limit set back; null when not restored, or closed by a restore that left no value here. */
  restored_w: z.number().nullable(),
  error: z.string().nullable(),
});
export type TuneRestore = z.infer<typeof TuneRestore>;

/** Why a session has no outcome: its CapLab process was killed (kill -9, a crash); found by the next CapLab to open the database. */
/** What a running session is doing: waiting for a steady rate, profiling a cap, or holding the chosen one. */
export const TuneActiveStage = z.enum(['warmup', 'visit', 'hold']);
export type TuneActiveStage = z.infer<typeof TuneActiveStage>;

export const TuneInterruption = z.object({
  /** Wall-clock seconds when a later CapLab found the process gone. */
  found_at: z.number().nullable(),
  /** What the session was doing when last recorded, and the cap it had set. */
  last_stage: TuneActiveStage,
  last_cap_w: z.number().nullable(),
  restored: z.array(TuneRestore),
});
export type TuneInterruption = z.infer<typeof TuneInterruption>;

/** Why the tuner held its cap: its search settled, the profiling budget or a cap's visit limit ran out, or `--hold` gave it. */
export const HoldReason = z.enum(['settled', 'budget', 'visits', 'given']);
export type HoldReason = z.infer<typeof HoldReason>;

/** A figure with its 95 % interval. */
export const TuneEstimate = z.object({ value: z.number(), ci: z.tuple([z.number(), z.number()]) });
export type TuneEstimate = z.infer<typeof TuneEstimate>;

/**
 * What the session's end report found, kept with its ended status so that reports and CSV exports read the figures
 * rather than the report's text. Absent before the end, and in sessions stored before it was kept.
 */
export const TuneOutcome = z.object({
  hold_reason: HoldReason.nullable(),
  hold_note: z.string().nullable(),
  /** GPU energy of the whole job, J (measured). */
  energy_j: z.number().nullable(),
  /** Against the whole job at the default limit: positive is saved; saved_fraction is of the default's energy. */
  saved_j: TuneEstimate.nullable(),
  saved_fraction: TuneEstimate.nullable(),
  /** Time per unit at the held cap against the default limit, - 1: positive is slower. */
  slowdown: TuneEstimate.nullable(),
  /** Why a saving is not estimated, or what limits it. */
  savings_note: z.string().nullable(),
  /** Profiling seconds at caps other than the one held. */
  profiling_off_cap_s: z.number(),
  reprofiles: z.number().int(),
  phase_changes: z.array(z.object({ t: z.number(), what: z.string() })),
});
export type TuneOutcome = z.infer<typeof TuneOutcome>;

/** What a tuning session is doing, live (the `tune.status` event; the console shows it beside the traces). */
export const TuneStatus = z.object({
  sweep_id: z.number().int(),
  /**
   * warmup: waiting for the job's rate to steady; visit: profiling a cap; hold: holding the chosen cap; ended;
   * interrupted: its CapLab was killed (stored sessions only; `interrupted` says when and what was restored).
   */
  stage: z.enum([...TuneActiveStage.options, 'ended', 'interrupted']),
  /** The cap set now (null before the first change). */
  cap_w: z.number().nullable(),
  /** The cap being held (null while profiling); at the end, the cap the job ended on. */
  held_w: z.number().nullable(),
  visits: z.number().int(),
  /** Backend seconds of profiling so far, and as a share of the job's time so far. */
  profiling_s: z.number(),
  profiling_share: z.number(),
  /** The profiling budget: max_profile_share of the expected job time, backend seconds. */
  budget_s: z.number(),
  /** Backend seconds since the job started, and its expected length. */
  job_s: z.number(),
  expected_s: z.number(),
  default_limit_w: z.number(),
  /** The tuner's latest note (what it decided, in words); for an interrupted session, what happened. */
  note: z.string().nullable(),
  interrupted: TuneInterruption.optional(),
  /** The end report's figures (stage ended only). */
  outcome: TuneOutcome.optional(),
});
export type TuneStatus = z.infer<typeof TuneStatus>;
