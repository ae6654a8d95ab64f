// A whole sweep or imported dataset as the JSON export bundle (src/shared/export.ts, caplab.export/1); both
// re-import with `caplab import` (src/main/lab/datasets/bundle-import.ts).
import type { CostTariffInput } from '../../../shared/cost';
import type { Db } from '../store/db';
import { exportDevicesOfDataset, exportDevicesOfSweep } from '../store/devices';
import { getSweep, runsOfSweep, sweepEnvironment } from '../store/sweeps';
import { storedTuneStatus } from '../tune/interrupted';
import { datasetMetricBlocks, datasetSampleBlocks, sweepMetricBlocks, sweepRunDevices, sweepSampleBlocks } from '../store/bundle-io';
import { getDataset } from '../store/datasets';
import { datasetSegments } from '../store/dataset-records';
import { analyzeDataset } from '../datasets/analysis';
import { loadDataset } from '../analysis/dataset-energy';
import { collectEnvironment } from '../environment/environment';
import { analyzeStoredSweep } from '../analysis/analyze-stored';
import { LoadError } from '../analysis/load';
import { EXPORT_SCHEMA, type ExportBundle } from '../../../shared/export';

/** The sweep with its plan, runs, devices, environment, every sample and metric, and its default analysis. */
export function sweepBundle(db: Db, sweepId: number, tariff?: CostTariffInput, now = new Date()): ExportBundle {
  const sweep = getSweep(db, sweepId);
  if (!sweep) throw new LoadError(`no sweep ${sweepId} in this database`);
  return {
    schema: EXPORT_SCHEMA,
    kind: 'sweep',
    exported_at: now.toISOString(),
    environment: sweepEnvironment(db, sweepId) ?? { host: sweep.host, os: null, caplab_version: 'not recorded', caplab_commit: null },
    sweep,
    // As read here: a killed session's says what this database's cap journal restored, which stays behind.
    tune_status: storedTuneStatus(db, sweepId),
    dataset: null,
    segments: [],
    runs: runsOfSweep(db, sweepId),
    devices: exportDevicesOfSweep(db, sweepId),
    run_devices: sweepRunDevices(db, sweepId),
    samples: sweepSampleBlocks(db, sweepId),
    metrics: sweepMetricBlocks(db, sweepId),
    results: analyzeStoredSweep(db, sweepId, { tariff }).result,
  };
}

/**
 * An imported dataset with its record (import report, time span), devices (with their kinds), every sample, metric
 * and segment, its sweep analysis as `results` (null when no segment carries a cap and units) and the whole
 * `analyze --dataset` answer as `analysis`.
 */
export function datasetBundle(db: Db, datasetId: number, tariff?: CostTariffInput, now = new Date()): ExportBundle {
  const ds = loadDataset(db, datasetId);
  const row = getDataset(db, datasetId)!;
  const analysis = analyzeDataset(db, datasetId, { tariff });
  return {
    schema: EXPORT_SCHEMA,
    kind: 'dataset',
    exported_at: now.toISOString(),
    environment: collectEnvironment(),
    sweep: null,
    tune_status: null,
    dataset: { ...row, samples: ds.samples, t_start: ds.t_start, t_end: ds.t_end, report: ds.report },
    segments: datasetSegments(db, datasetId).map((s) => ({ ...s, name: s.label })),
    runs: [],
    devices: exportDevicesOfDataset(db, datasetId),
    run_devices: [],
    samples: datasetSampleBlocks(db, datasetId),
    metrics: datasetMetricBlocks(db, datasetId),
    results: analysis.sweep,
    analysis,
  };
}
