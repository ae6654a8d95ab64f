import { z } from 'zod';
import { SensorKind } from './device';

/** Formats `caplab import --format` accepts. */
export const ImportFormat = z.enum([
  'nvidia-smi',
  'wattameter',
  'dcgm-dmon',
  'prometheus',
  'zeus',
  'codecarbon',
  'facility-csv',
  'caplab-json',
]);
export type ImportFormat = z.infer<typeof ImportFormat>;

export const ImportDevice = z.object({
  /** Key within the dataset: `gpu:0`, `cpu:1`, `node:host`, ... */
  key: z.string(),
  kind: z.enum(['gpu', 'cpu', 'node', 'facility']),
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
});
export type ImportReport = z.infer<typeof ImportReport>;
