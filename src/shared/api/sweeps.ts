import { z } from 'zod';
import { SeriesSample } from '../sample';
import { Source } from '../source';
import { CapRestore, LiveSamples, RunRecord, RunStatus, RunTraces, SweepRecord } from '../records';

/** A run as a sweep lists it: node/hostname say where a cluster sweep's run ran; null for a sweep of one host. */
const SweepRun = RunRecord.extend({ node: z.string().nullable(), hostname: z.string().nullable() });

/** Largest pages of listRuns and listSamples (what one call returns at most). */
export const MAX_RUN_PAGE = 1000;
export const MAX_SAMPLE_PAGE = 10_000;

/** A page request: `cursor` is the `next` of the previous page (absent: the first page), opaque. */
const pageInput = (max: number, dflt: number) => ({ cursor: z.string().max(1024).optional(), limit: z.number().int().min(1).max(max).default(dflt) });

/** One stored sample of a paged trace, with the device it belongs to. */
export const PagedSample = SeriesSample.omit({ device_id: true }).extend({ device_key: z.string() });
export type PagedSample = z.infer<typeof PagedSample>;

/** Sweeps and their runs: starting and stopping one, the History page's list, a run's stored traces and samples. */
export const sweepMethods = {
  startSweep: { input: z.object({ plan: z.unknown() }).strict(), output: z.object({ sweep_id: z.number().int() }) },
  cancelSweep: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ cancelled: z.boolean() }) },
  listSweeps: { input: z.object({ search: z.string().max(200).optional() }).strict(), output: z.array(SweepRecord) },
  getSweep: {
    input: z.object({ sweep_id: z.number().int() }).strict(),
    output: z.object({ sweep: SweepRecord, runs: z.array(SweepRun) }),
  },
  /** A sweep's runs a page at a time, in run order; `next` is null after the last page. */
  listRuns: {
    input: z.object({ sweep_id: z.number().int(), ...pageInput(MAX_RUN_PAGE, 100) }).strict(),
    output: z.object({ runs: z.array(SweepRun), next: z.string().nullable() }),
  },
  /**
   * The stored samples of a run or a dataset segment a page at a time: device after device (by index), t ascending
   * within a device; `next` is null after the last page.
   */
  listSamples: {
    input: z.object({ source: Source, ...pageInput(MAX_SAMPLE_PAGE, 2000) }).strict(),
    output: z.object({ samples: z.array(PagedSample), next: z.string().nullable() }),
  },
  /** The user's tags and notes on a sweep (History page); what is not given is kept. Answers the updated record. */
  setSweepNotes: {
    input: z
      .object({
        sweep_id: z.number().int(),
        tags: z.array(z.string().trim().min(1).max(40)).max(20).optional(),
        notes: z.string().max(4000).optional(),
      })
      .strict(),
    output: SweepRecord,
  },
  deleteSweep: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ deleted: z.boolean() }) },
  getRunTraces: {
    input: z.object({ run_id: z.number().int(), max_points: z.number().int().min(10).max(100_000).default(2000) }).strict(),
    output: RunTraces,
  },
  /** Types into the running workload's terminal (a sudo password prompt, for instance). */
  writePty: { input: z.object({ sweep_id: z.number().int(), data: z.string().max(4096) }).strict(), output: z.object({ written: z.boolean() }) },
} as const;

/** A running sweep's stream (a tuning session sends the same, plus `tune.status`). */
export const sweepEvents = {
  'sweep.started': z.object({ sweep_id: z.number().int(), run_count: z.number().int(), simulated: z.boolean() }),
  'sweep.progress': z.object({
    sweep_id: z.number().int(),
    run_id: z.number().int().nullable(),
    runs_done: z.number().int(),
    run_count: z.number().int(),
    workload: z.string().nullable(),
    cap_w: z.number().nullable(),
    repetition: z.number().int().nullable(),
    /** Why this run is done (first pass, refinement, a sequential repetition); null: a run of the plan as written. */
    reason: z.string().nullable().optional(),
    phase: z.enum(['setting-cap', 'warmup', 'measure', 'cooldown', 'idle']),
    /** Fraction of the whole sweep done, 0..1: work done over work planned, never decreasing. */
    fraction: z.number(),
  }),
  'run.finished': z.object({ sweep_id: z.number().int(), run: RunRecord, status: RunStatus }),
  'sweep.finished': z.object({ sweep_id: z.number().int(), status: SweepRecord.shape.status, error: z.string().nullable(), restored: z.array(CapRestore) }),
  'samples': LiveSamples,
  'throughput': z.object({ sweep_id: z.number().int(), run_id: z.number().int(), t: z.number(), rate: z.number() }),
  'pty.data': z.object({ sweep_id: z.number().int(), run_id: z.number().int(), data: z.string() }),
} as const;
