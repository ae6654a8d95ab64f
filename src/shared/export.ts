import { z } from 'zod';
import { SensorFacts } from './device';
import { SensorKind, sampleFields, sampleSpec, type SampleField } from './sample';
import { AnalysisResult, Selector } from './analysis';
import { CostTariff } from './cost';
import { RunRecord, SweepRecord } from './records';
import { exportFileKinds, exportFormatIds } from './exports';
import { TuneStatus } from './tune';

/**
 * What leaves CapLab (issue #12): the JSON bundle of a whole sweep or dataset, the columns of a samples export,
 * and the `--json` description of what a report or export wrote. The bundle re-imports losslessly (the dataset
 * importer reads it): every stored number is written as JSON's shortest round-trip form of the same double.
 * Versioned by `schema`; a reader refuses a version it does not know. Add fields, never rename.
 */

export const EXPORT_SCHEMA = 'caplab.export/1' as const;

/** The sample columns an export can hold, in file order, with their units (CSV headers read `name [unit]`): the sample spec's. */
export const SAMPLE_EXPORT_COLUMNS: readonly { name: SampleField; unit: string | null }[] = sampleFields.map((name) => {
  const f = sampleSpec[name] as { unit?: string };
  return { name, unit: f.unit ?? null };
});
export type SampleExportColumn = SampleField;
export const SampleColumnName = z.enum(sampleFields as [SampleField, ...SampleField[]]);

/** A device as recorded (the environment part of a bundle). `key` is the store's device key. */
export const ExportDevice = z.object({
  key: z.string(),
  host: z.string(),
  backend: z.string(),
  index: z.number().int(),
  kind: z.string(),
  name: z.string(),
  vendor: z.string(),
  simulated: z.boolean(),
  uuid: z.string().nullable(),
  pci_bus_id: z.string().nullable(),
  driver: z.string().nullable(),
  vbios: z.string().nullable(),
  min_limit_w: z.number().nullable(),
  max_limit_w: z.number().nullable(),
  default_limit_w: z.number().nullable(),
  sensors: SensorFacts.partial().passthrough(),
});
export type ExportDevice = z.infer<typeof ExportDevice>;

/** Where samples came from: a whole sweep or dataset (one device's stream), a sweep run, or a dataset segment. */
export const SampleSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sweep'), sweep_id: z.number().int() }),
  z.object({ kind: z.literal('dataset'), dataset_id: z.number().int() }),
  z.object({ kind: z.literal('run'), run_id: z.number().int() }),
  z.object({ kind: z.literal('segment'), segment_id: z.number().int() }),
]);
export type SampleSource = z.infer<typeof SampleSource>;

const nums = z.array(z.number().nullable());

/**
 * One device's samples from one source, column-oriented (compact and exact: the stored values, which the store keeps
 * at the sample spec's resolution). Every column has `t`'s length.
 */
export const SampleBlock = z
  .object({
    source: SampleSource,
    device: z.string(),
    t: z.array(z.number()),
    power_w: nums,
    power_kind: z.array(SensorKind),
    power_avg_w: nums,
    energy_mj: nums,
    sm_clock_mhz: nums,
    mem_clock_mhz: nums,
    temp_c: nums,
    util_gpu: nums,
    util_mem: nums,
    mem_used_mb: nums,
    limit_w: nums,
    throttle_reasons: z.array(z.number().int().nullable()),
  })
  .superRefine((b, ctx) => {
    for (const c of SAMPLE_EXPORT_COLUMNS) {
      if (b[c.name].length !== b.t.length) ctx.addIssue({ code: 'custom', path: [c.name], message: `has ${b[c.name].length} values, t has ${b.t.length}` });
    }
  });
export type SampleBlock = z.infer<typeof SampleBlock>;

/** A run's workload metrics (throughput events and the like), column-oriented. */
export const MetricBlock = z
  .object({ source: SampleSource, name: z.string(), t: z.array(z.number()), value: z.array(z.number()) })
  .refine((b) => b.t.length === b.value.length, { message: 't and value differ in length' });
export type MetricBlock = z.infer<typeof MetricBlock>;

/** A workload's Python as it reported itself (run with its argv at sweep start); absent parts say why. */
export const PythonRecord = z.object({
  workload: z.string(),
  executable: z.string(),
  python: z.string().nullable(),
  pytorch: z.string().nullable(),
  /** CUDA / ROCm (HIP) version PyTorch was built with; null for CPU builds or without PyTorch. */
  pytorch_cuda: z.string().nullable(),
  pytorch_rocm: z.string().nullable(),
  cudnn: z.string().nullable(),
  /** Why a part is absent ("No module named 'torch'", "python4: not found", "timed out after 20 s"). */
  note: z.string().nullable(),
});
export type PythonRecord = z.infer<typeof PythonRecord>;

/** A workload's container image as its runtime's `image inspect` reported it. */
export const ImageRecord = z.object({
  workload: z.string(),
  runtime: z.string(),
  image: z.string(),
  /** Image id (content digest of its config) and repository digests (`name@sha256:...`). */
  id: z.string().nullable(),
  digests: z.array(z.string()),
  note: z.string().nullable(),
});
export type ImageRecord = z.infer<typeof ImageRecord>;

/** The workloads' software, taken at sweep start: Pythons, images and the host's CUDA driver / ROCm versions. */
export const SoftwareRecord = z.object({
  pythons: z.array(PythonRecord),
  images: z.array(ImageRecord),
  cuda_driver: z.string().nullable(),
  rocm: z.string().nullable(),
  /** What the record covers when there is nothing to probe (simulated workloads). */
  note: z.string().nullable(),
});
export type SoftwareRecord = z.infer<typeof SoftwareRecord>;

/** Where the numbers were made: host and software. Unknown parts are null, never guessed. */
export const ExportEnvironment = z
  .object({
    host: z.string().nullable(),
    os: z.string().nullable().default(null),
    caplab_version: z.string(),
    caplab_commit: z.string().nullable().default(null),
    software: SoftwareRecord.optional(),
  })
  .passthrough();
export type ExportEnvironment = z.infer<typeof ExportEnvironment>;

/** An imported dataset's own record (the datasets table), as the dataset importer wrote it. */
export const ExportDataset = z
  .object({
    id: z.number().int(),
    name: z.string(),
    source: z.string(),
    format: z.string(),
    content_hash: z.string().nullable(),
    timezone: z.string().nullable(),
    imported_at: z.number(),
    meta: z.record(z.string(), z.unknown()).default({}),
  })
  .passthrough();

/** A dataset segment (a labelled time range of a dataset), as the store keeps it. */
export const ExportSegment = z.object({ id: z.number().int(), name: z.string().nullable().default(null), start: z.number(), end: z.number() }).passthrough();

/** Per-device figures of a run (the store's run_devices). */
export const RunDevice = z.object({
  run_id: z.number().int(),
  device: z.string(),
  energy_j: z.number().nullable(),
  mean_power_w: z.number().nullable(),
  energy_sensor: z.string().nullable(),
  enforced_limit_w: z.number().nullable(),
});
export type RunDevice = z.infer<typeof RunDevice>;

export const ExportBundle = z.object({
  schema: z.literal(EXPORT_SCHEMA),
  kind: z.enum(['sweep', 'dataset']),
  exported_at: z.string(),
  environment: ExportEnvironment,
  /** The sweep record (with its plan); null for a dataset. */
  sweep: SweepRecord.nullable(),
  /** A tuning session's stored outcome (getTuneStatus); null for a plain sweep, a dataset, and bundles from before it was carried. */
  tune_status: TuneStatus.nullable().default(null),
  dataset: ExportDataset.nullable().default(null),
  segments: z.array(ExportSegment).default([]),
  runs: z.array(RunRecord),
  devices: z.array(ExportDevice),
  run_devices: z.array(RunDevice).default([]),
  samples: z.array(SampleBlock),
  metrics: z.array(MetricBlock),
  /** `caplab analyze --json` of the same source with default options (and `cost` when a tariff is given); null where nothing could be analysed. */
  results: AnalysisResult.nullable(),
  /** A dataset bundle: `caplab analyze --dataset ID --json` of it (energy per segment, warnings, sweep analysis). */
  analysis: z.unknown().optional(),
});
export type ExportBundle = z.infer<typeof ExportBundle>;

/** One file a report or export wrote (`--json` of `caplab report` / `caplab export`). */
export const WrittenFile = z.object({
  kind: z.enum(exportFileKinds),
  path: z.string(),
  bytes: z.number().int(),
  /** Rows of a table or samples file. */
  rows: z.number().int().nullable().default(null),
  /** The source it describes, e.g. "sweep 3", "dataset 2", "compare 3,4". */
  source: z.string(),
});
export type WrittenFile = z.infer<typeof WrittenFile>;

/** What the app's Export button asks for (contract method exportFile): a format of `exportList` (shared/exports.ts). */
export const ExportFormat = z.enum(exportFormatIds);
export type ExportFormat = z.infer<typeof ExportFormat>;

/** The most sweeps a comparison (report, Results page, History) puts beside the first one. */
export const MAX_COMPARED = 8;

/** The app's Export button: what to make, of a sweep (or a comparison of sweeps) or of a dataset. */
export const ExportRequest = z
  .object({
    sweep_id: z.number().int().optional(),
    /** A comparison report: the sweep first (the baseline), then these. */
    compare_ids: z.array(z.number().int()).max(MAX_COMPARED).optional(),
    dataset_id: z.number().int().optional(),
    format: ExportFormat,
    paper: z.enum(['a4', 'letter']).default('a4'),
    author: z.string().max(200).optional(),
    overhead_w: z.number().min(0).max(10_000).optional(),
    selector: Selector.optional(),
    slowdown_budget: z.number().min(0).max(10).optional(),
    weight: z.number().min(0).max(1).optional(),
    include_unenforced: z.boolean().optional(),
    /** Cost and carbon columns / section (the per-cap CSV, the report): the tariff analyzeSweep takes. */
    tariff: CostTariff.optional(),
  })
  .strict()
  .refine((r) => (r.sweep_id === undefined) !== (r.dataset_id === undefined), { message: 'give either sweep_id or dataset_id', path: ['sweep_id'] })
  .refine((r) => !r.compare_ids?.length || r.sweep_id !== undefined, { message: 'compare_ids compares sweeps: give sweep_id', path: ['compare_ids'] });
export type ExportRequest = z.input<typeof ExportRequest>;

/** A file made for the app to save (a download in the browser host, a save dialog in the desktop app). */
export const ExportedFile = z.object({ filename: z.string(), mime: z.string(), bytes: z.number().int(), data_base64: z.string() });
export type ExportedFile = z.infer<typeof ExportedFile>;
