import type { AnalysisResult, Comparison } from '../../shared/analysis';
import type { ExportDevice, ExportEnvironment } from '../../shared/export';
import type { RunRecord, SweepRecord } from '../../shared/records';
import type { MethodOutput } from '../../shared/api';
import type { DatasetFile, DatasetRecord } from '../../shared/dataset';
import type { SegmentEnergy } from '../../shared/dataset-analysis';
import type { TuneStatus } from '../../shared/tune';

export type Paper = 'a4' | 'letter';

/** One analysed source of a report: a sweep (or a dataset analysed like one). */
export interface ReportSource {
  /** "sweep 3", "dataset 2". */
  label: string;
  name: string;
  sweep: SweepRecord | null;
  /** The plan as YAML, as `caplab` writes plans. */
  plan_yaml: string | null;
  runs: RunRecord[];
  devices: ExportDevice[];
  environment: ExportEnvironment;
  /** `caplab analyze --json` of this source with the report's options. */
  analysis: AnalysisResult;
  /** An imported dataset's own figures (dataset reports only). */
  dataset?: DatasetPart;
  /** A tuning session's stored status (storedTuneStatus); null or absent for a plain sweep and a dataset. */
  tune_status?: TuneStatus | null;
}

/** What a dataset report shows beyond the per-cap analysis: energy by segment, the trace, the files. */
export interface DatasetPart {
  dataset_id: number;
  /** Start of the dataset's samples (epoch s, or s from the log's start): the trace's and the table's time zero. */
  t_start: number;
  /** The import's clock: wall (epoch s) or relative (s from the log's start, no date). */
  clock: 'wall' | 'relative';
  samples: number;
  /** The dataset's devices (series), by key: the trace and the energy name them by key and index. */
  devices: DatasetRecord['devices'];
  /** The files as the dataset's record names them (the file the user chose, never an upload's temp file). */
  files: DatasetFile[];
  /** `analyzeDataset`'s segments: the energy of each, as `caplab energy --dataset ID --segment N` gives it. */
  segments: SegmentEnergy[];
  /** `analyzeDataset`'s warnings (no segment with a cap and work units, node-level power, ...). */
  warnings: string[];
  /** `getDatasetTrace`: each device's power, min/max-decimated to at most `max_points` points. */
  trace: MethodOutput<'getDatasetTrace'>;
  max_points: number;
}

/** Everything the HTML report shows; built by the engine, rendered by renderReport (pure). */
export interface ReportInput {
  kind: 'sweep' | 'dataset' | 'compare';
  title: string;
  author: string | null;
  /** ISO-8601 time the report was made. */
  generated_at: string;
  paper: Paper;
  sources: ReportSource[];
  /** `caplab compare --json` of the sources (compare reports only). */
  comparison: Comparison | null;
}
