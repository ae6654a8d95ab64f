import { z } from 'zod';
import { DeviceKey } from './sample';

/**
 * What the analysis analyses: a source is a CapLab run, or a dataset segment (a time window of imported samples
 * with optional workload, cap and units). Energy, steady state, per-cap statistics, selectors, Pareto and compare
 * all take sources, so imported data is analysed exactly like CapLab's own runs.
 */
export const RunSource = z.object({ kind: z.literal('run'), run_id: z.number().int() }).strict();
export type RunSource = z.infer<typeof RunSource>;

/** The facts of a segment, stored (dataset_segments) or given inline. */
export const SegmentFacts = z.object({
  dataset_id: z.number().int(),
  start: z.number(),
  end: z.number(),
  /** Devices of the dataset to use; default every GPU with samples in the window (CPU packages count as CPU). */
  device_keys: z.array(DeviceKey).nullable().default(null),
  workload: z.string().nullable().default(null),
  cap_w: z.number().positive().nullable().default(null),
  units: z.string().nullable().default(null),
  /** Work done in the window over all its GPUs; null: from the dataset's 'units' metrics in the window. */
  units_in_window: z.number().min(0).nullable().default(null),
  repetition: z.number().int().min(1).default(1),
  label: z.string().nullable().default(null),
});
export type SegmentFacts = z.infer<typeof SegmentFacts>;

/** A stored segment by id (inline fields override the stored ones), or an ad-hoc one with its facts inline. */
export const SegmentSource = z
  .object({ kind: z.literal('segment'), segment_id: z.number().int().optional() })
  .extend(SegmentFacts.partial().shape)
  .strict()
  .refine((s) => s.segment_id !== undefined || (s.dataset_id !== undefined && s.start !== undefined && s.end !== undefined), {
    message: 'a segment source needs segment_id, or dataset_id with start and end',
  });
export type SegmentSource = z.infer<typeof SegmentSource>;

export const Source = z.union([RunSource, SegmentSource]);
export type Source = z.infer<typeof Source>;

/** How an analysed run names its source in results (runs keep run_id; segments get run_id = -segment id). */
export const SourceRef = z.object({ kind: z.enum(['run', 'segment']), id: z.number().int() });
export type SourceRef = z.infer<typeof SourceRef>;
