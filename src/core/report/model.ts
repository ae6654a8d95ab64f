import type { AnalysisResult, Comparison } from '../../shared/analysis';
import type { ExportDevice, ExportEnvironment } from '../../shared/export';
import type { RunRecord, SweepRecord } from '../../shared/records';

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
