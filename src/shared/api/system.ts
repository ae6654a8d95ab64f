import { z } from 'zod';

/** The app itself: is the engine up, and what the About dialog shows. */
export const systemMethods = {
  health: { input: z.object({}).strict(), output: z.object({ ok: z.literal(true), version: z.string(), backend: z.string() }) },
  /** What the About dialog shows: version, the commit it runs from, where its data lives. */
  about: {
    input: z.object({}).strict(),
    output: z.object({
      version: z.string(),
      /** Git commit (short hash, "+dirty" with local changes); null when not run from a git checkout. */
      commit: z.string().nullable(),
      data_dir: z.string(),
      db_path: z.string(),
      host: z.string(),
      node: z.string(),
    }),
  },
} as const;
