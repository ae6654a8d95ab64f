import { z } from 'zod';
import { AnalysisResult, RangeEnergy } from './analysis';
import { Segment, type DatasetRecord } from './dataset';

/** One segment of a dataset with its energy (by sensor, with its stated uncertainty) and, with units, its figures. */
export const SegmentEnergy = z.object({
  segment: Segment,
  energy: RangeEnergy,
  /** Work units per second per GPU over the segment; null without units. */
  throughput: z.number().nullable(),
  /** Work units per joule of node energy (GPUs + the node overhead), as for runs; null without units or energy. */
  efficiency: z.number().nullable(),
  /** What efficiency's energy includes: "GPU energy + 100 W node overhead", "node power as recorded (no overhead added)". */
  efficiency_basis: z.string().default(''),
  /** Work units per joule of the recorded power alone (no overhead added); null without units or energy. */
  efficiency_gpu_only: z.number().nullable().default(null),
});
export type SegmentEnergy = z.infer<typeof SegmentEnergy>;

/** `caplab analyze --dataset ID --json`, the analyzeDataset method: segments' energy and the sweep-like analysis. */
export const DatasetAnalysis = z.object({
  dataset_id: z.number().int(),
  name: z.string(),
  segments: z.array(SegmentEnergy),
  /** The sweep analysis of the segments that carry a cap and work units (null when none do). */
  sweep: AnalysisResult.nullable(),
  warnings: z.array(z.string()),
});
export type DatasetAnalysis = z.infer<typeof DatasetAnalysis>;

/** The segments analysed like a sweep's runs: those with a cap and the work done. */
export const analysableSegments = (ds: Pick<DatasetRecord, 'segments'>) => ds.segments.filter((s) => s.cap_w !== null && s.units_in_window !== null);
