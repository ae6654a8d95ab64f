// Stored sweeps -> the report's input (src/core/report/model.ts): the same analysis `caplab analyze --json` prints
// for the same options, the records, the devices and the environment taken when the sweep started.
import type { Db } from '../store/db';
import { exportDevicesOfDataset, exportDevicesOfSweep } from '../store/devices';
import { getDataset } from '../store/datasets';
import { analyzeDataset } from '../datasets/analysis';
import { loadDataset } from '../analysis/dataset-energy';
import { datasetTrace } from '../datasets/requests';
import { LoadError } from '../analysis/load';
import { analyzeSweep } from '../../../core/analysis/analyze';
import { runsOfSweep, sweepEnvironment } from '../store/sweeps';
import { analyzeStoredSweep } from '../analysis/analyze-stored';
import { planToYaml } from '../sweep/plan-file';
import { storedTuneStatus } from '../tune/interrupted';
import { compareSweeps } from '../../../core/analysis/compare';
import type { Paper, ReportInput, ReportSource } from '../../../core/report/model';
import { withCost, type CostedAnalysisOptions } from '../analysis/cost';

export type ReportOptions = CostedAnalysisOptions;

/** A report's subject: one sweep, one imported dataset, or several sweeps compared (the first is the baseline). */
export type ReportSubject = { kind: 'sweep'; sweep_id: number } | { kind: 'dataset'; dataset_id: number } | { kind: 'compare'; sweep_ids: number[] };

/** Points per device in a dataset report's trace: a printed page shows no more, however many samples there are. */
export const REPORT_TRACE_POINTS = 1000;

/**
 * An imported dataset as a report source: analyzeDataset's energy by segment and its per-cap analysis of the
 * segments with a cap and work units (none: the report shows the energy and the trace alone), the decimated trace.
 * Throws LoadError.
 */
function datasetSource(db: Db, datasetId: number, opts: ReportOptions): ReportSource {
  const d = getDataset(db, datasetId);
  if (!d) throw new LoadError(`no dataset ${datasetId} in this database (see \`caplab datasets\`)`);
  const ds = loadDataset(db, datasetId);
  if (ds.segments.length === 0) throw new LoadError(`dataset ${datasetId} has no segments to analyse (its import found no per-cap windows)`);
  // As `caplab analyze --dataset` and the analyzeDataset method: no overhead given is the sources' own (none).
  const a = analyzeDataset(db, datasetId, { ...opts, overhead_w: opts.overhead_w ?? null });
  const trace = datasetTrace(db, { dataset_id: datasetId, max_points: REPORT_TRACE_POINTS });
  const { tariff, ...analysis } = opts;
  return {
    label: `dataset ${d.id}`,
    name: d.name,
    sweep: null,
    plan_yaml: null,
    runs: [],
    devices: exportDevicesOfDataset(db, datasetId),
    environment: { host: null, os: null, caplab_version: 'not recorded', caplab_commit: null, imported_from: d.source, format: d.format },
    // No analysable segment: the analysis of no runs, so the record of the options used stays.
    analysis: a.sweep ?? withCost(analyzeSweep({ sweep_id: null, name: d.name, runs: [], overhead_w: null }, { ...analysis, overhead_w: opts.overhead_w ?? null }), tariff),
    dataset: { dataset_id: datasetId, t_start: ds.t_start ?? trace.from, clock: ds.report?.clock ?? 'wall', samples: ds.samples, devices: ds.devices, files: ds.files, segments: a.segments, warnings: a.warnings, trace, max_points: REPORT_TRACE_POINTS },
  };
}

/** One stored sweep analysed with `opts`, as a report source. Throws LoadError for an unknown sweep. */
function sweepSource(db: Db, sweepId: number, opts: ReportOptions): ReportSource {
  const { loaded, result } = analyzeStoredSweep(db, sweepId, opts);
  const s = loaded.sweep;
  return {
    label: `sweep ${s.id}`,
    name: s.name,
    sweep: s,
    plan_yaml: planToYaml(s.plan),
    runs: runsOfSweep(db, sweepId),
    devices: exportDevicesOfSweep(db, sweepId),
    // Sweeps recorded before the environment was kept: only the host is known.
    environment: sweepEnvironment(db, sweepId) ?? { host: s.host, os: null, caplab_version: 'not recorded', caplab_commit: null },
    analysis: result,
    tune_status: storedTuneStatus(db, sweepId),
  };
}

export interface ReportMeta {
  author: string | null;
  paper: Paper;
  title?: string;
  now?: Date;
}

export function buildReport(db: Db, subject: ReportSubject, opts: ReportOptions, meta: ReportMeta): ReportInput {
  const sources = subject.kind === 'dataset' ? [datasetSource(db, subject.dataset_id, opts)] : (subject.kind === 'sweep' ? [subject.sweep_id] : subject.sweep_ids).map((id) => sweepSource(db, id, opts));
  let comparison = null;
  if (subject.kind === 'compare') {
    const groups = sources.map((s) => ({ label: `#${s.sweep!.id} ${s.analysis.groups[0]?.device_model ?? ''}`.trim(), group: s.analysis.groups[0] }));
    const usable = groups.filter((g): g is { label: string; group: NonNullable<typeof g.group> } => g.group !== undefined);
    comparison = usable.length >= 2 ? compareSweeps(usable) : null;
  }
  const title = meta.title ?? (subject.kind === 'compare' ? `Comparison of ${sources.map((s) => s.label).join(', ')}` : `${sources[0]!.name} (${sources[0]!.label})`);
  return { kind: subject.kind, title, author: meta.author, generated_at: (meta.now ?? new Date()).toISOString(), paper: meta.paper, sources, comparison };
}
