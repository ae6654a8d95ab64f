import { z } from 'zod';
import { SensorKind } from './device';
import { importFormatIds } from './importers';
import { SegmentFacts } from './source';

/** Formats `caplab import --format` accepts: the names in `importerList` (`src/shared/importers.ts`). */
export const ImportFormat = z.enum(importFormatIds);
export type ImportFormat = z.infer<typeof ImportFormat>;

/**
 * What an imported device's power covers: one GPU, one CPU (package), a node's or job's nodes' whole power (GPU + CPU
 * summed, as the NLR aggregated profiles hold), or a whole facility. Stored as the device row's kind.
 */
export const DatasetDeviceKind = z.enum(['gpu', 'cpu', 'node', 'facility']);
export type DatasetDeviceKind = z.infer<typeof DatasetDeviceKind>;

/** Each kind's power in words, for the Datasets page and the energy warnings. */
export const deviceKindWords: Record<DatasetDeviceKind, string> = {
  gpu: 'GPU',
  cpu: 'CPU',
  node: 'node-level (GPU + CPU, summed over the nodes)',
  facility: 'whole-facility',
};

/**
 * Which devices a dataset's energy is of: its GPUs; without GPUs its node-level power; else its facility power.
 * Null: none of these (CPU-only logs).
 */
export function energyKindOf(kinds: readonly string[]): 'gpu' | 'node' | 'facility' | null {
  for (const k of ['gpu', 'node', 'facility'] as const) if (kinds.includes(k)) return k;
  return null;
}

export const ImportDevice = z.object({
  /** Key within the dataset: `gpu:0`, `cpu:1`, `node:host`, ... */
  key: z.string(),
  kind: DatasetDeviceKind,
  index: z.number().int().nullable(),
  name: z.string().nullable(),
  uuid: z.string().nullable(),
  pci_bus_id: z.string().nullable(),
  rows: z.number().int(),
  /** Longest pause between two of the device's readings (logger flush gaps, restarts), s. */
  max_gap_s: z.number().default(0),
});
export type ImportDevice = z.infer<typeof ImportDevice>;

/** One source column and what it became. */
export const ColumnInfo = z.object({
  source: z.string(),
  channel: z.string(),
  /** Unit in the file; values are converted to the channel's unit (W, mJ, MHz, C, %, MiB). */
  unit: z.string().nullable(),
  /** For power columns: the sensor kind the readings are labelled with. */
  sensor_kind: SensorKind.nullable().default(null),
  note: z.string().nullable().default(null),
});
export type ColumnInfo = z.infer<typeof ColumnInfo>;

export const SkipReason = z.object({ reason: z.string(), count: z.number().int(), lines: z.array(z.number().int()) });

export const ImportReport = z.object({
  format: z.string(),
  files: z.array(z.string()),
  rows_read: z.number().int(),
  rows_skipped: z.number().int(),
  skipped: z.array(SkipReason),
  devices: z.array(ImportDevice),
  columns: z.array(ColumnInfo),
  /** Seconds since the epoch ('wall') or since the log's start ('relative'). */
  t_start: z.number().nullable(),
  t_end: z.number().nullable(),
  clock: z.enum(['wall', 'relative']),
  warnings: z.array(z.string()),
  /** Readings earlier than their device's previous one (stored in time order all the same), with the first lines. */
  reordered: z.object({ count: z.number().int(), lines: z.array(z.number().int()) }).default({ count: 0, lines: [] }),
});
export type ImportReport = z.infer<typeof ImportReport>;

/** Where a segment came from: change points in power/utilisation, a window the user brushed, or the data's structure. */
export const SegmentOrigin = z.enum(['auto', 'brush', 'structure']);
export type SegmentOrigin = z.infer<typeof SegmentOrigin>;

/** A stored dataset segment (the measurement model's SegmentFacts) with its id and origin. */
export const Segment = SegmentFacts.extend({ id: z.number().int(), origin: SegmentOrigin });
export type Segment = z.infer<typeof Segment>;

/** A segment to add: the facts an importer or a user sets (id and dataset come from the store). */
export const SegmentInput = SegmentFacts.omit({ dataset_id: true }).partial().required({ start: true, end: true }).extend({ origin: SegmentOrigin });
export type SegmentInput = z.input<typeof SegmentInput>;

export const DatasetFile = z.object({ path: z.string(), format: z.string(), bytes: z.number().int(), content_hash: z.string() });
export type DatasetFile = z.infer<typeof DatasetFile>;

/** One imported dataset, as `caplab import --json` and the History list print it. */
export const DatasetRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  format: z.string(),
  timezone: z.string().nullable(),
  content_hash: z.string().nullable(),
  imported_at: z.number(),
  samples: z.number().int(),
  t_start: z.number().nullable(),
  t_end: z.number().nullable(),
  files: z.array(DatasetFile),
  devices: z.array(z.object({ id: z.number().int(), key: z.string(), kind: z.string(), name: z.string(), index: z.number().int() })),
  segments: z.array(Segment),
  report: ImportReport.nullable(),
});
export type DatasetRecord = z.infer<typeof DatasetRecord>;
