// What an adaptive plan (plan `adaptive`) spent, against the same plan with every figure fixed (issue 28).
import { z } from 'zod';

export const AdaptiveSummary = z.object({
  /** Device seconds the sweep's runs took: start to end of every run, plus the cool-downs waited. */
  gpu_s: z.number(),
  /** The same runs with the plan's fixed window and cool-down, plus the fixed repetitions not run. */
  fixed_gpu_s: z.number(),
  saved_s: z.number(),
  /** Of saved_s: windows ended before the plan's, cool-downs ended before cooldown_s, repetitions not needed. */
  window_saved_s: z.number(),
  cooldown_saved_s: z.number(),
  repetitions_saved_s: z.number(),
  /** Runs a fixed plan would make (every measured cap at max_per_cap repetitions) that the sequential rule did not. */
  runs_not_needed: z.number().int(),
  runs: z.number().int(),
  windows_settled: z.number().int(),
  note: z.string(),
});
export type AdaptiveSummary = z.infer<typeof AdaptiveSummary>;
