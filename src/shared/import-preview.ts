import { z } from 'zod';
import { ColumnInfo, ImportDevice, ImportFormat, SkipReason } from './dataset';

/** What the page can do about an issue: pick the format, give the field list, set the time zone. */
export const PreviewAction = z.enum(['pick_format', 'set_fields', 'set_tz']);
export type PreviewAction = z.infer<typeof PreviewAction>;

/** Something the preview found: an error stops the import (as it would fail); a warning or note does not. */
export const PreviewIssue = z.object({
  level: z.enum(['error', 'warning', 'note']),
  message: z.string(),
  action: PreviewAction.nullable(),
});
export type PreviewIssue = z.infer<typeof PreviewIssue>;

/** One reading as the chosen format reads it: time, device (key in `devices`) and its channels' values (null: missing). */
export const PreviewRow = z.object({
  t: z.number(),
  device: z.string(),
  values: z.record(z.string(), z.number().nullable()),
});
export type PreviewRow = z.infer<typeof PreviewRow>;

/** One file's preview: what detection found, and its first rows read with the chosen (else detected) format. */
export const PreviewFile = z.object({
  /** The file as the user named it (an upload by the name it was chosen under). */
  file: z.string(),
  bytes: z.number().int(),
  /** What auto-detection picks; null: no format recognises the file's head. */
  detected: ImportFormat.nullable(),
  /** Every format whose detection rules match the head, the detected one first. */
  candidates: z.array(ImportFormat),
  /** The format the rows were read with: the chosen one, else the detected one; null when there is none. */
  format: ImportFormat.nullable(),
  /** The file's first lines as they are (text files; empty for binary ones). */
  head: z.array(z.string()),
  /** Source columns and the channels they became (unit, sensor kind). */
  columns: z.array(ColumnInfo),
  devices: z.array(ImportDevice),
  /** 'wall': times from the file's own clock; 'relative': seconds from its start; null: not read. */
  clock: z.enum(['wall', 'relative']).nullable(),
  /** Whether the time zone changes the times read (timestamps written without a zone). */
  zone_applies: z.boolean(),
  /** The channels the rows hold, in CapLab's channel order. */
  channels: z.array(z.string()),
  rows: z.array(PreviewRow),
  /** Of the part read for the preview (the file's first 64 KiB): rows read and skipped, with reasons. */
  rows_read: z.number().int(),
  rows_skipped: z.number().int(),
  skipped: z.array(SkipReason),
  warnings: z.array(z.string()),
  issues: z.array(PreviewIssue),
});
export type PreviewFile = z.infer<typeof PreviewFile>;

export const ImportPreview = z.object({
  format: z.union([z.literal('auto'), ImportFormat]),
  /** The time zone timestamps without one are read in (the one given, else the engine's machine's). */
  zone: z.string(),
  fields: z.array(z.string()).nullable(),
  files: z.array(PreviewFile),
  /** Files found beyond those previewed (a directory tree or archive with many). */
  files_not_previewed: z.number().int(),
  /** Whether the import would start: no file has an error. */
  ready: z.boolean(),
});
export type ImportPreview = z.infer<typeof ImportPreview>;

/** The import channels in words with their stored units, for the preview's column mapping. */
export const channelWords: Record<string, { label: string; unit: string }> = {
  power_instant_w: { label: 'power (instant)', unit: 'W' },
  power_avg_w: { label: 'power (average)', unit: 'W' },
  power_derived_w: { label: 'power (from the energy counter)', unit: 'W' },
  energy_mj: { label: 'energy counter', unit: 'mJ' },
  sm_clock_mhz: { label: 'SM clock', unit: 'MHz' },
  mem_clock_mhz: { label: 'memory clock', unit: 'MHz' },
  temp_c: { label: 'temperature', unit: '°C' },
  util_gpu: { label: 'GPU utilisation', unit: '%' },
  util_mem: { label: 'memory utilisation', unit: '%' },
  mem_used_mb: { label: 'memory used', unit: 'MiB' },
  limit_w: { label: 'power limit', unit: 'W' },
};
