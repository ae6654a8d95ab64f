// Offline analysis of an imported dataset: energy over any range or segment, and the sweep analysis of its
// segments (each a source, exactly like a run: sources.ts), where they carry a cap and work units.
import { analyzeSweep } from '../../../core/analysis/analyze';
import type { AnalysisOptionsInput, AnalysisResult, RangeEnergy } from '../../../shared/analysis';
import type { DatasetRecord, Segment } from '../../../shared/dataset';
import { energyOverDevices, LoadError } from '../analysis/load';
import { loadSources } from '../analysis/sources';
import { runFigures } from '../../../core/analysis/figures';
import { Plan } from '../../../shared/plan';

/** The node overhead when none is given: the plan schema's default, as for sweeps. */
const DEFAULT_OVERHEAD_W = Plan.shape.overhead_w.parse(undefined);
import type { Db } from '../store/db';
import { datasetRecord, devicesOfDataset } from '../store/dataset-records';

export function loadDataset(db: Db, id: number): DatasetRecord {
  const ds = datasetRecord(db, id);
  if (!ds) throw new LoadError(`no dataset ${id} in this database`);
  return ds;
}

/** Energy of a dataset's GPUs (or the device with that index) over [from, to]. */
export function datasetEnergy(db: Db, datasetId: number, from: number, to: number, deviceIndex?: number): RangeEnergy {
  loadDataset(db, datasetId);
  const devs = devicesOfDataset(db, datasetId).filter((d) => (deviceIndex === undefined ? d.kind === 'gpu' : d.index === deviceIndex));
  const r = energyOverDevices(db, devs, from, to);
  if (devs.length === 0) r.warnings.push(deviceIndex === undefined ? 'this dataset has no GPU' : `no device with index ${deviceIndex} in this dataset`);
  else if (r.devices.length === 0) r.warnings.push('no samples of this dataset in this time range');
  return r;
}

export interface SegmentEnergy {
  segment: Segment;
  energy: RangeEnergy;
  /** Work units per second per GPU over the segment; null without units. */
  throughput: number | null;
  /** Work units per joule of node energy (GPUs + the node overhead), as for runs; null without units or energy. */
  efficiency: number | null;
}

export interface DatasetAnalysis {
  dataset_id: number;
  name: string;
  segments: SegmentEnergy[];
  /** The sweep analysis of the segments that carry a cap and work units (null when none do). */
  sweep: AnalysisResult | null;
  warnings: string[];
}

export function analyzeDataset(db: Db, datasetId: number, opts: Omit<AnalysisOptionsInput, 'adaptive'> = {}): DatasetAnalysis {
  const ds = loadDataset(db, datasetId);
  const warnings: string[] = [];
  const gpus = ds.devices.filter((d) => d.kind === 'gpu').length;
  const segments = ds.segments.map((segment) => {
    const energy = datasetEnergy(db, datasetId, segment.start, segment.end);
    // The one definition of a run's figures (src/core/analysis/figures.ts): node energy = GPUs + the overhead.
    const f = runFigures({
      duration_s: segment.end - segment.start,
      units_in_window: segment.units_in_window,
      gpus: Math.max(1, gpus),
      gpu: energy.devices,
      cpu: [],
      overhead_w: opts.overhead_w ?? DEFAULT_OVERHEAD_W,
      use_measured_cpu: false,
    });
    return { segment, energy, throughput: f.throughput, efficiency: f.efficiency };
  });
  const runnable = ds.segments.filter((s) => s.cap_w !== null && s.units_in_window !== null);
  let sweep: AnalysisResult | null = null;
  if (runnable.length > 0) {
    const input = loadSources(
      db,
      runnable.map((s) => ({ kind: 'segment' as const, segment_id: s.id })),
      { name: ds.name },
    );
    sweep = analyzeSweep(input, opts);
  } else if (ds.segments.length) warnings.push('no segment carries a cap and work units: per-cap curves need both (set them on the dataset page)');
  return { dataset_id: ds.id, name: ds.name, segments, sweep, warnings };
}
