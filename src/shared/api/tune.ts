import { z } from 'zod';
import { TuneStart, TuneStatus } from '../tune';

/** Tuning a running job (`caplab tune -- CMD` from the app). */
export const tuneMethods = {
  /**
   * Starts a tuning session (`caplab tune -- CMD` from the app): the job runs under leased, journalled limits while
   * its caps are profiled and the best is held. Everything is checked before a limit is touched; the session is
   * recorded as a sweep (its visits are runs) and streams the sweep events plus `tune.status`.
   */
  startTune: { input: TuneStart, output: z.object({ sweep_id: z.number().int() }) },
  /** Ends a tuning session: the limits restored at once, the job's process tree ended. cancelSweep does the same. */
  cancelTune: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ cancelled: z.boolean() }) },
  /**
   * A finished tuning session's outcome: its last tune.status (the cap held, visits, profiling share, the tuner's
   * note). Null while it runs, for a sweep, and for a session whose CapLab was killed before it ended.
   */
  getTuneStatus: { input: z.object({ sweep_id: z.number().int() }).strict(), output: TuneStatus.nullable() },
} as const;

export const tuneEvents = {
  /** A tuning session's stage, cap and profiling share, on every change and about once a second. */
  'tune.status': TuneStatus,
} as const;
