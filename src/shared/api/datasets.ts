import { z } from 'zod';
import { DatasetRecord, ImportFormat, ImportReport, Segment, SegmentOrigin } from '../dataset';
import { DatasetAnalysis } from '../dataset-analysis';
import { ImportPreview } from '../import-preview';
import { Series } from '../records';
import { analysisOptions } from './analysis';

/** The --query-gpu field list of a headerless nvidia-smi log, as importDataset and previewImport take it. */
const importFields = z.array(z.string().min(1).max(128)).min(1).max(256).optional();

/** Imported samples (the Datasets page): importing and previewing files, a dataset's traces, segments and analysis. */
export const datasetMethods = {
  /**
   * A dataset's segments with their energy (and its stated uncertainty), and those with a cap and work units
   * analysed as a sweep (same code as `caplab analyze --dataset`; what the results page compares with sweeps).
   */
  analyzeDataset: {
    input: z.object({ dataset_id: z.number().int(), ...analysisOptions }).strict(),
    output: DatasetAnalysis,
  },
  /** Imported datasets, newest first (without their import reports). */
  listDatasets: { input: z.object({}).strict(), output: z.array(DatasetRecord) },
  getDataset: { input: z.object({ dataset_id: z.number().int() }).strict(), output: DatasetRecord },
  deleteDataset: { input: z.object({ dataset_id: z.number().int() }).strict(), output: z.object({ deleted: z.boolean() }) },
  /**
   * Imports files as one dataset (same code as `caplab import`): `paths` on this machine (the desktop app's drops),
   * or `files` sent with their text (the browser host's drops). Progress comes as `import.progress` events.
   */
  importDataset: {
    input: z
      .object({
        import_id: z.string().max(64),
        paths: z.array(z.string().max(4096)).max(10_000).optional(),
        files: z.array(z.object({ name: z.string().max(255), text: z.string().max(256 * 1024 * 1024) })).max(100).optional(),
        format: z.union([z.literal('auto'), ImportFormat]).default('auto'),
        tz: z.string().max(64).optional(),
        /** The --query-gpu field list of a headerless nvidia-smi log (`caplab import --fields`). */
        fields: importFields,
        /** Sampling interval of logs without timestamps, s (`caplab import --interval`). */
        interval_s: z.number().positive().max(86_400).optional(),
        name: z.string().max(200).optional(),
        /** What the dataset's record calls a path: the browser host names an uploaded temp file as the file the user chose. */
        display_names: z.record(z.string().max(4096), z.string().max(4096)).optional(),
      })
      .strict(),
    output: z.object({
      dataset: DatasetRecord.nullable(),
      duplicate_of: z.object({ dataset_id: z.number().int(), name: z.string(), path: z.string() }).nullable(),
      reports: z.array(ImportReport),
      /** CapLab JSON exports among the inputs: each became a sweep again (duplicate_of_sweep: already imported, nothing written). */
      sweeps: z.array(z.object({ sweep_id: z.number().int(), name: z.string(), file: z.string(), duplicate_of_sweep: z.number().int().nullable() })).default([]),
      /** CapLab JSON exports of datasets among the inputs: each became a dataset again (duplicate_of_dataset: already imported). */
      datasets: z.array(z.object({ dataset_id: z.number().int(), name: z.string(), file: z.string(), duplicate_of_dataset: z.number().int().nullable() })).default([]),
    }),
  },
  /**
   * What an import of `paths` with these options would read, before anything is written: each file's detected format
   * and candidates, its columns and what they became, its first rows, and issues with what the page can do about
   * them. Reads each file's first 64 KiB with the same format modules as the import.
   */
  previewImport: {
    input: z
      .object({
        paths: z.array(z.string().max(4096)).min(1).max(10_000),
        format: z.union([z.literal('auto'), ImportFormat]).default('auto'),
        tz: z.string().max(64).optional(),
        fields: importFields,
        interval_s: z.number().positive().max(86_400).optional(),
        /** Rows shown per file. */
        rows: z.number().int().min(1).max(200).default(10),
        display_names: z.record(z.string().max(4096), z.string().max(4096)).optional(),
      })
      .strict(),
    output: ImportPreview,
  },
  /** A dataset's traces over [from, to] (default: all of it), min/max-decimated from the store's blocks. */
  getDatasetTrace: {
    input: z.object({ dataset_id: z.number().int(), from: z.number().optional(), to: z.number().optional(), max_points: z.number().int().min(10).max(100_000).default(2000) }).strict(),
    output: z.object({
      dataset_id: z.number().int(),
      from: z.number(),
      to: z.number(),
      devices: z.array(z.object({ device_id: z.string(), name: z.string(), kind: z.string(), power_w: Series, util_gpu: Series, sm_clock_mhz: Series, temp_c: Series })),
    }),
  },
  /** Adds a segment (a brushed window, for instance) or changes one; delete with delete: true. */
  saveSegment: {
    input: z
      .object({
        dataset_id: z.number().int(),
        segment_id: z.number().int().optional(),
        delete: z.boolean().optional(),
        start: z.number().optional(),
        end: z.number().optional(),
        label: z.string().max(200).nullable().optional(),
        origin: SegmentOrigin.optional(),
        workload: z.string().max(200).nullable().optional(),
        cap_w: z.number().positive().max(100_000).nullable().optional(),
        units: z.string().max(64).nullable().optional(),
        units_in_window: z.number().min(0).nullable().optional(),
      })
      .strict(),
    output: z.object({ segments: z.array(Segment) }),
  },
} as const;

export const datasetEvents = {
  'import.progress': z.object({ import_id: z.string(), file: z.string(), files_done: z.number().int(), files_total: z.number().int(), fraction: z.number(), samples: z.number().int() }),
} as const;
