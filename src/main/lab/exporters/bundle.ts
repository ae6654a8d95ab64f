// A whole sweep as the JSON export bundle (src/shared/export.ts, caplab.export/1).
import type { Db } from '../store/db';
import { exportDevicesOfSweep } from '../store/devices';
import { getSweep, runsOfSweep, sweepEnvironment } from '../store/sweeps';
import { sweepMetricBlocks, sweepRunDevices, sweepSampleBlocks } from '../store/bundle-io';
import { analyzeStoredSweep } from '../analysis/analyze-stored';
import { LoadError } from '../analysis/load';
import { EXPORT_SCHEMA, type ExportBundle } from '../../../shared/export';

/** The sweep with its plan, runs, devices, environment, every sample and metric, and its default analysis. */
export function sweepBundle(db: Db, sweepId: number, now = new Date()): ExportBundle {
  const sweep = getSweep(db, sweepId);
  if (!sweep) throw new LoadError(`no sweep ${sweepId} in this database`);
  return {
    schema: EXPORT_SCHEMA,
    kind: 'sweep',
    exported_at: now.toISOString(),
    environment: sweepEnvironment(db, sweepId) ?? { host: sweep.host, os: null, caplab_version: 'not recorded', caplab_commit: null },
    sweep,
    dataset: null,
    segments: [],
    runs: runsOfSweep(db, sweepId),
    devices: exportDevicesOfSweep(db, sweepId),
    run_devices: sweepRunDevices(db, sweepId),
    samples: sweepSampleBlocks(db, sweepId),
    metrics: sweepMetricBlocks(db, sweepId),
    results: analyzeStoredSweep(db, sweepId, {}).result,
  };
}
