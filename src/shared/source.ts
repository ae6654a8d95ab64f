import { z } from 'zod';
import { DeviceKey } from './sample';

/**
 * What the analysis analyses: a source is a CapLab run, or a dataset segment (a time window of imported samples
 * with optional workload, cap and units). Energy, steady state, per-cap statistics, selectors, Pareto and compare
 * all take sources, so imported data is analysed exactly like CapLab's own runs.
 */
export const RunSource = z.object({ kind: z.literal('run'), run_id: z.number().int() }).strict();
export type RunSource = z.infer<typeof RunSource>;

const segmentShape = {
  dataset_id: z.number().int(),
  start: z.number(),
  end: z.number(),
  /** Devices of the dataset to use; default every GPU with samples in the window (CPU packages count as CPU). */
  device_keys: z.array(DeviceKey).nullable(),
  workload: z.string().nullable(),
  cap_w: z.number().positive().nullable(),
  units: z.string().nullable(),
  /** Work done in the window over all its GPUs; null: from the dataset's 'units' metrics in the window. */
  units_in_window: z.number().min(0).nullable(),
  repetition: z.number().int().min(1),
  label: z.string().nullable(),
};

/** The facts of a segment, stored (dataset_segments) or given inline. */
export const SegmentFacts = z.object({
  ...segmentShape,
  device_keys: segmentShape.device_keys.default(null),
  workload: segmentShape.workload.default(null),
  cap_w: segmentShape.cap_w.default(null),
  units: segmentShape.units.default(null),
  units_in_window: segmentShape.units_in_window.default(null),
  repetition: segmentShape.repetition.default(1),
  label: segmentShape.label.default(null),
});
export type SegmentFacts = z.infer<typeof SegmentFacts>;

/** A stored segment by id (inline fields override the stored ones), or an ad-hoc one with its facts inline. */
export const SegmentSource = z
  .object({ kind: z.literal('segment'), segment_id: z.number().int().optional() })
  .extend(z.object(segmentShape).partial().shape)
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
