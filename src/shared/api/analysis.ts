import { z } from 'zod';
import { AnalysisResult, RangeEnergy, Selector } from '../analysis';
import { CostTariff } from '../cost';
import { Source } from '../source';
import { MAX_OVERLAY_SOURCES, OverlaySource } from '../overlay';

/** A sweep's best cap per workload and GPU model under the default analysis options (bestCaps). */
export const SweepBestCaps = z.object({
  sweep_id: z.number().int(),
  selector: Selector,
  groups: z.array(z.object({ workload: z.string(), device_model: z.string(), cap_w: z.number().nullable(), no_answer_reason: z.string().nullable() })),
  error: z.string().nullable(),
});
export type SweepBestCaps = z.infer<typeof SweepBestCaps>;

/** The analysis options analyzeSweep, analyzeSources and analyzeDataset share (the CLI's --overhead, --selector, ... flags). */
export const analysisOptions = {
  overhead_w: z.number().min(0).max(10_000).optional(),
  selector: Selector.optional(),
  slowdown_budget: z.number().min(0).max(10).optional(),
  weight: z.number().min(0).max(1).optional(),
  include_unenforced: z.boolean().optional(),
  include_flagged: z.boolean().optional(),
  margin: z.number().gt(0).lt(1).optional(),
  /** Judge caps measured once on the pooled run-to-run spread; default: the sweep plan's adaptive.repetitions.pool_single. */
  pool_single: z.boolean().optional(),
  /** Cost and carbon of the measured energy (the result's `cost`): the facility planner's tariff, constants optional. */
  tariff: CostTariff.optional(),
};

/** Results and comparisons: sweeps and sources analysed, energy over a range, traces overlaid. */
export const analysisMethods = {
  /**
   * Each sweep's best cap under the default options (History's column), per workload and GPU model, or why there is
   * none; `error` says why a sweep could not be analysed (not stored, no readable runs). Same analysis as analyzeSweep.
   */
  bestCaps: {
    input: z.object({ sweep_ids: z.array(z.number().int()).max(1000) }).strict(),
    output: z.array(SweepBestCaps),
  },
  /** The analysis of a sweep (same code as `caplab analyze`): per-cap statistics, flags, optima, sensitivity, Pareto. */
  analyzeSweep: {
    input: z.object({ sweep_id: z.number().int(), ...analysisOptions }).strict(),
    output: AnalysisResult,
  },
  /** The same analysis over sources: CapLab runs and dataset segments (imported samples), mixed freely. */
  analyzeSources: {
    input: z
      .object({
        sources: z.array(Source).min(1).max(10_000),
        name: z.string().max(200).optional(),
        ...analysisOptions,
        use_measured_cpu: z.boolean().optional(),
      })
      .strict(),
    output: AnalysisResult,
  },
  /** Energy over a time range of stored samples: every GPU, one device index, or one imported dataset's. */
  energyInRange: {
    input: z
      .object({ from: z.number(), to: z.number(), device_index: z.number().int().min(0).optional(), dataset_id: z.number().int().optional() })
      .strict()
      .refine((i) => i.to > i.from, { message: 'to must be after from', path: ['to'] }),
    output: RangeEnergy,
  },
  /**
   * Traces of several runs and dataset segments (of one sweep or several, and datasets) in one call, each aligned at
   * its measurement window's start (t = seconds from it) and min/max-decimated, with its warm-up / measure /
   * cool-down phases and what it did not record (the Overlay page). A source that cannot be read has `error`.
   */
  overlayTraces: {
    input: z.object({ sources: z.array(Source).min(1).max(MAX_OVERLAY_SOURCES), max_points: z.number().int().min(10).max(20_000).default(1000) }).strict(),
    output: z.object({ sources: z.array(OverlaySource) }),
  },
} as const;
