import { z } from 'zod';
import { BackendChoice, DeviceInfo, Sample } from './device';
import { SeriesSample } from './sample';
import { AnalysisResult, RangeEnergy, Selector } from './analysis';
import { CostTariff } from './cost';
import { Plan } from './plan';
import { Source } from './source';
import { ApiErrorCode } from './errors';
import { DatasetRecord, ImportFormat, ImportReport, Segment, SegmentOrigin } from './dataset';
import { reportDocumentFormats } from './exports';
import { CapRestore, LiveSamples, RunRecord, RunStatus, RunTraces, Series, SweepRecord } from './records';
import { ClusterJob, ClusterStatus, CollectResult, NodeAnalysis } from './cluster';
import { ExportedFile, ExportRequest } from './export';
import { DatasetAnalysis } from './dataset-analysis';
import { ImportPreview } from './import-preview';
import { MAX_OVERLAY_SOURCES, OverlaySource } from './overlay';
import { TuneStart, TuneStatus } from './tune';

/** One problem of a plan at its field: `path` dotted ('' for the plan as a whole), `message` in words. */
export const PlanIssue = z.object({ path: z.string(), message: z.string() });
export type PlanIssue = z.infer<typeof PlanIssue>;
import { FacilityResult, FacilitySeriesSlice } from './facility';

/** A sweep's best cap per workload and GPU model under the default analysis options (bestCaps). */
export const SweepBestCaps = z.object({
  sweep_id: z.number().int(),
  selector: Selector,
  groups: z.array(z.object({ workload: z.string(), device_model: z.string(), cap_w: z.number().nullable(), no_answer_reason: z.string().nullable() })),
  error: z.string().nullable(),
});
export type SweepBestCaps = z.infer<typeof SweepBestCaps>;

/** The analysis options analyzeSweep and analyzeSources share (the CLI's --overhead, --selector, ... flags). */
const analysisOptions = {
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

/** The --query-gpu field list of a headerless nvidia-smi log, as importDataset and previewImport take it. */
const importFields = z.array(z.string().min(1).max(128)).min(1).max(256).optional();

/** A run as a sweep lists it: node/hostname say where a cluster sweep's run ran; null for a sweep of one host. */
const SweepRun = RunRecord.extend({ node: z.string().nullable(), hostname: z.string().nullable() });

/** Largest pages of listRuns and listSamples (what one call returns at most). */
export const MAX_RUN_PAGE = 1000;
export const MAX_SAMPLE_PAGE = 10_000;

/** A page request: `cursor` is the `next` of the previous page (absent: the first page), opaque. */
const pageInput = (max: number, dflt: number) => ({ cursor: z.string().max(1024).optional(), limit: z.number().int().min(1).max(max).default(dflt) });

/** One stored sample of a paged trace, with the device it belongs to. */
export const PagedSample = SeriesSample.omit({ device_id: true }).extend({ device_key: z.string() });
export type PagedSample = z.infer<typeof PagedSample>;

/**
 * The one contract between the engine and its faces (Electron IPC, the browser host, the CLI).
 * Every method has an input and output schema; both transports validate inputs with them.
 * Adding a method: one entry here plus one engine function in src/main/lab/engine.ts.
 */
/** A facility config to run: its YAML, and what the page may override. */
const FacilityRunInput = z
  .object({
    yaml: z.string().max(5_000_000),
    base_dir: z.string().max(4096).optional(),
    scenario: z.string().max(200).optional(),
    replicas: z.number().int().min(1).max(64).optional(),
    horizon_days: z.number().positive().max(366).optional(),
  })
  .strict();

export const methods = {
  health: { input: z.object({}).strict(), output: z.object({ ok: z.literal(true), version: z.string(), backend: z.string() }) },
  listDevices: {
    input: z.object({ backend: BackendChoice.optional() }).strict(),
    output: z.object({ backend: z.string(), reason: z.string(), devices: z.array(DeviceInfo) }),
  },
  validatePlan: {
    input: z.object({ plan: z.unknown() }).strict(),
    output: z.object({
      ok: z.boolean(),
      errors: z.array(z.string()),
      /** The same problems at their fields: `path` dotted (`caps.from`, `workloads.0.id`), `message` in words. */
      issues: z.array(PlanIssue),
      plan: Plan.nullable(),
      run_count: z.number().int(),
      /** Wall seconds the sweep should take: process start-up, warm-up, window and cool-down of every run (simulated speed-up applied). */
      estimate_s: z.number().nullable(),
      /** What the estimate includes, in words. */
      estimate_basis: z.string().nullable().default(null),
      /**
       * What the plan's warm-up, window or timeouts do not allow for, at their fields (a workload's start-up and ramp
       * from its earlier runs on this device or the simulator's model; what the steady-state test needs). Warnings,
       * not errors: `ok` stays true and the plan may start.
       */
      warnings: z.array(PlanIssue).default([]),
      /** Plan `adaptive`: expected and most device time, wall seconds like estimate_s, beside the same plan fixed. */
      adaptive_estimate: z.object({ fixed_s: z.number(), adaptive_s: z.number(), max_s: z.number(), assumptions: z.string() }).nullable().optional(),
    }),
  },
  planToYaml: { input: z.object({ plan: Plan }).strict(), output: z.object({ yaml: z.string() }) },
  planFromYaml: {
    input: z.object({ yaml: z.string().max(1_000_000) }).strict(),
    output: z.object({ ok: z.boolean(), errors: z.array(z.string()), issues: z.array(PlanIssue), plan: Plan.nullable() }),
  },
  startSweep: { input: z.object({ plan: z.unknown() }).strict(), output: z.object({ sweep_id: z.number().int() }) },
  cancelSweep: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ cancelled: z.boolean() }) },
  /**
   * Starts a tuning session (`caplab tune -- CMD` from the app): the job runs under leased, journalled limits while
   * its caps are profiled and the best is held. Everything is checked before a limit is touched; the session is
   * recorded as a sweep (its visits are runs) and streams the sweep events plus `tune.status`.
   */
  startTune: { input: TuneStart, output: z.object({ sweep_id: z.number().int() }) },
  /** Ends a tuning session: the limits restored at once, the job's process tree ended. cancelSweep does the same. */
  cancelTune: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ cancelled: z.boolean() }) },
  /**
   * A finished tuning session's outcome: its last tune.status (the cap held, visits, profiling share, the tuner's
   * note). Null while it runs, for a sweep, and for a session whose CapLab was killed before it ended.
   */
  getTuneStatus: { input: z.object({ sweep_id: z.number().int() }).strict(), output: TuneStatus.nullable() },
  listSweeps: { input: z.object({ search: z.string().max(200).optional() }).strict(), output: z.array(SweepRecord) },
  getSweep: {
    input: z.object({ sweep_id: z.number().int() }).strict(),
    output: z.object({ sweep: SweepRecord, runs: z.array(SweepRun) }),
  },
  /** A sweep's runs a page at a time, in run order; `next` is null after the last page. */
  listRuns: {
    input: z.object({ sweep_id: z.number().int(), ...pageInput(MAX_RUN_PAGE, 100) }).strict(),
    output: z.object({ runs: z.array(SweepRun), next: z.string().nullable() }),
  },
  /**
   * The stored samples of a run or a dataset segment a page at a time: device after device (by index), t ascending
   * within a device; `next` is null after the last page.
   */
  listSamples: {
    input: z.object({ source: Source, ...pageInput(MAX_SAMPLE_PAGE, 2000) }).strict(),
    output: z.object({ samples: z.array(PagedSample), next: z.string().nullable() }),
  },
  /** The user's tags and notes on a sweep (History page); what is not given is kept. Answers the updated record. */
  setSweepNotes: {
    input: z
      .object({
        sweep_id: z.number().int(),
        tags: z.array(z.string().trim().min(1).max(40)).max(20).optional(),
        notes: z.string().max(4000).optional(),
      })
      .strict(),
    output: SweepRecord,
  },
  deleteSweep: { input: z.object({ sweep_id: z.number().int() }).strict(), output: z.object({ deleted: z.boolean() }) },
  getRunTraces: {
    input: z.object({ run_id: z.number().int(), max_points: z.number().int().min(10).max(100_000).default(2000) }).strict(),
    output: RunTraces,
  },
  restoreCaps: { input: z.object({}).strict(), output: z.array(CapRestore) },
  /**
   * Traces of several runs and dataset segments (of one sweep or several, and datasets) in one call, each aligned at
   * its measurement window's start (t = seconds from it) and min/max-decimated, with its warm-up / measure /
   * cool-down phases and what it did not record (the Overlay page). A source that cannot be read has `error`.
   */
  overlayTraces: {
    input: z.object({ sources: z.array(Source).min(1).max(MAX_OVERLAY_SOURCES), max_points: z.number().int().min(10).max(20_000).default(1000) }).strict(),
    output: z.object({ sources: z.array(OverlaySource) }),
  },
  /** One reading of every device now (idle gauges); during a sweep the `samples` event streams instead. */
  sampleDevices: {
    input: z.object({ backend: BackendChoice.optional() }).strict(),
    output: z.object({ backend: z.string(), samples: z.array(Sample) }),
  },
  /** Types into the running workload's terminal (a sudo password prompt, for instance). */
  writePty: { input: z.object({ sweep_id: z.number().int(), data: z.string().max(4096) }).strict(), output: z.object({ written: z.boolean() }) },
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
  /** What the About dialog shows: version, the commit it runs from, where its data lives. */
  about: {
    input: z.object({}).strict(),
    output: z.object({
      version: z.string(),
      /** Git commit (short hash, "+dirty" with local changes); null when not run from a git checkout. */
      commit: z.string().nullable(),
      data_dir: z.string(),
      db_path: z.string(),
      host: z.string(),
      node: z.string(),
    }),
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
  /** Cluster jobs this database submitted (`caplab cluster submit`), newest first. */
  listClusterJobs: { input: z.object({}).strict(), output: z.array(ClusterJob) },
  /** squeue/sacct and the tasks' result files: each array task's state and runs. */
  clusterStatus: { input: z.object({ job: z.string().min(1).max(4096) }).strict(), output: ClusterStatus },
  /** Merges the tasks' results into one sweep with a node dimension (idempotent; partial while the job runs). */
  collectCluster: { input: z.object({ job: z.string().min(1).max(4096) }).strict(), output: CollectResult },
  /** scancel; every node restores its own limits. wait: until Slurm lists none of its tasks. */
  cancelCluster: {
    input: z.object({ job: z.string().min(1).max(4096), wait: z.boolean().optional() }).strict(),
    output: z.object({ job_id: z.string(), cancelled: z.boolean(), remaining: z.number().int() }),
  },
  /** Node-to-node analysis of a sweep: spread across nodes and GPUs, outlier nodes, best cap per node and fleet. */
  analyzeNodes: { input: z.object({ sweep_id: z.number().int() }).strict(), output: NodeAnalysis },
  /** A report (PDF, HTML) or an export (CSV, JSON) of a sweep or a comparison, with the page's analysis options. */
  exportFile: { input: ExportRequest, output: ExportedFile },
  listWorkloads: {
    input: z.object({}).strict(),
    output: z.array(z.object({ id: z.string(), title: z.string(), units: z.string() })),
  },
  /** The facility configs shipped in resources/facility (NLR reconstructions), with their YAML. */
  listFacilityConfigs: {
    input: z.object({}).strict(),
    output: z.array(z.object({ name: z.string(), file: z.string(), yaml: z.string() })),
  },
  /**
   * Runs a facility config (same code as `caplab facility`); relative paths in it are read from base_dir (default
   * the shipped resources/facility). Progress streams as `facility.progress`.
   */
  runFacility: {
    input: FacilityRunInput,
    output: FacilityResult,
  },
  /** Cancels the facility runs and reports in progress (they reject with "facility run cancelled"); how many. */
  cancelFacility: {
    input: z.object({}).strict(),
    output: z.object({ cancelled: z.number().int() }),
  },
  /**
   * A window [from_h, to_h) of one level's power series from a run the engine kept (the result's series_key):
   * replica 1 at full resolution, or bucket means when the window has more than max_points steps. A key the engine
   * no longer keeps (it keeps the last runs only) is not_found: run again.
   */
  facilitySeries: {
    input: z
      .object({
        series_key: z.string().max(100),
        scenario: z.string().max(200),
        target_index: z.number().int().min(0),
        from_h: z.number().min(0),
        to_h: z.number().positive(),
        max_points: z.number().int().min(10).max(200_000).default(20_000),
      })
      .strict(),
    output: FacilitySeriesSlice,
  },
  /**
   * The facility report (`caplab facility --pdf/--html`) of a config run as runFacility runs it (same seed, same
   * numbers as the page shows), as a file to save. Progress streams as `facility.progress`.
   */
  facilityReport: {
    input: FacilityRunInput.extend({ format: z.enum(reportDocumentFormats), paper: z.enum(['a4', 'letter']).default('a4'), author: z.string().max(200).optional() }).strict(),
    output: ExportedFile,
  },
} as const;

export const events = {
  'sweep.started': z.object({ sweep_id: z.number().int(), run_count: z.number().int(), simulated: z.boolean() }),
  'sweep.progress': z.object({
    sweep_id: z.number().int(),
    run_id: z.number().int().nullable(),
    runs_done: z.number().int(),
    run_count: z.number().int(),
    workload: z.string().nullable(),
    cap_w: z.number().nullable(),
    repetition: z.number().int().nullable(),
    /** Why this run is done (first pass, refinement, a sequential repetition); null: a run of the plan as written. */
    reason: z.string().nullable().optional(),
    phase: z.enum(['setting-cap', 'warmup', 'measure', 'cooldown', 'idle']),
    /** Fraction of the whole sweep done, 0..1: work done over work planned, never decreasing. */
    fraction: z.number(),
  }),
  'run.finished': z.object({ sweep_id: z.number().int(), run: RunRecord, status: RunStatus }),
  'sweep.finished': z.object({ sweep_id: z.number().int(), status: SweepRecord.shape.status, error: z.string().nullable(), restored: z.array(CapRestore) }),
  'samples': LiveSamples,
  'throughput': z.object({ sweep_id: z.number().int(), run_id: z.number().int(), t: z.number(), rate: z.number() }),
  'pty.data': z.object({ sweep_id: z.number().int(), run_id: z.number().int(), data: z.string() }),
  /** A tuning session's stage, cap and profiling share, on every change and about once a second. */
  'tune.status': TuneStatus,
  'import.progress': z.object({ import_id: z.string(), file: z.string(), files_done: z.number().int(), files_total: z.number().int(), fraction: z.number(), samples: z.number().int() }),
  'facility.progress': z.object({ done: z.number().int(), total: z.number().int(), label: z.string() }),
  /** An app export of samples: rows written of (about) the total. */
  'export.progress': z.object({ format: z.string(), done: z.number().int(), total: z.number().int() }),
} as const;

export type MethodName = keyof typeof methods;
export type MethodInput<M extends MethodName> = z.input<(typeof methods)[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<(typeof methods)[M]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;
/**
 * One event as the engine hands it out, name then payload, a union over the contract's events, so a
 * LabEventListener `(name, payload) => …` narrows the payload by testing the name, without casts. A listener that
 * wants the name alone destructures it, `(...[name]) => …`: TypeScript refuses a one-parameter function here.
 */
export type EventArgs = { [E in EventName]: [name: E, payload: EventPayload<E>] }[EventName];
export type LabEventListener = (...e: EventArgs) => void;

/** What every face implements or calls. */
export type LabApi = { [M in MethodName]: (input: MethodInput<M>) => Promise<MethodOutput<M>> };

export const methodNames = Object.keys(methods) as MethodName[];
export const eventNames = Object.keys(events) as EventName[];

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, name);
}

/** Error shape both transports return. */
export const ApiError = z.object({ error: z.string(), code: ApiErrorCode });
export type ApiError = z.infer<typeof ApiError>;
