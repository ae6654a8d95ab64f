// Offline analysis of an imported dataset: energy over any range, per segment, and — where segments carry a
// cap and work units — the same analysis as a sweep (each segment is a run).
import { analyzeSweep } from '../../../core/analysis/analyze';
import { windowEnergy } from '../../../core/analysis/energy';
import type { AnalysisOptionsInput, AnalysisResult, AnalysisRunInput } from '../../../shared/analysis';
import type { DatasetRecord, Segment } from '../../../shared/dataset';
import { LoadError, toSeriesSample, type RangeEnergy } from '../analysis/load';
import type { Db } from '../store/db';
import { devicesOfDataset, getDataset } from '../store/datasets';
import { samplesInRange } from '../store/samples';

export function loadDataset(db: Db, id: number): DatasetRecord {
  const ds = getDataset(db, id);
  if (!ds) throw new LoadError(`no dataset ${id} in this database`);
  return ds;
}

/** Energy of a dataset's devices (GPUs, or the device with that index) over [from, to]. */
export function datasetEnergy(db: Db, datasetId: number, from: number, to: number, deviceIndex?: number): RangeEnergy {
  loadDataset(db, datasetId);
  const pad = 5;
  const devs = devicesOfDataset(db, datasetId).filter((d) => (deviceIndex === undefined ? d.kind === 'gpu' : d.index === deviceIndex));
  const warnings: string[] = [];
  const devices: RangeEnergy['devices'] = [];
  for (const d of devs) {
    const rows = samplesInRange(db, d.id, from - pad, to + pad);
    if (rows.length === 0) continue;
    const e = windowEnergy(rows.map(toSeriesSample), { start: from, end: to }, { device_id: d.key });
    devices.push({ ...e, index: d.index, name: d.name, device_key: d.key });
  }
  if (devs.length === 0) warnings.push(deviceIndex === undefined ? 'this dataset has no GPU' : `no device with index ${deviceIndex} in this dataset`);
  else if (devices.length === 0) warnings.push('no samples of this dataset in this time range');
  const ok = devices.length > 0 && devices.every((d) => d.energy_j !== null);
  const energy = ok ? devices.reduce((s, d) => s + (d.energy_j as number), 0) : null;
  const sensors = [...new Set(devices.map((d) => d.sensor))];
  const duration = to - from;
  return {
    from,
    to,
    duration_s: duration,
    energy_j: energy,
    mean_w: energy !== null && duration > 0 ? energy / duration : null,
    samples: devices.reduce((s, d) => s + d.samples, 0),
    sensor: sensors.length === 1 ? sensors[0]! : sensors.length ? (sensors.includes(null) ? null : 'mixed') : null,
    devices,
    warnings,
  };
}

export interface SegmentEnergy {
  segment: Segment;
  energy: RangeEnergy;
  throughput: number | null;
  efficiency: number | null;
}

export interface DatasetAnalysis {
  dataset_id: number;
  name: string;
  segments: SegmentEnergy[];
  /** The sweep analysis over segments that carry a cap and work units (null when none do). */
  sweep: AnalysisResult | null;
  warnings: string[];
}

/** Per-segment energy, and the sweep analysis of segments with cap + units (each segment a run). */
export function analyzeDataset(db: Db, datasetId: number, opts: Omit<AnalysisOptionsInput, 'adaptive'> = {}): DatasetAnalysis {
  const ds = loadDataset(db, datasetId);
  const warnings: string[] = [];
  const gpus = devicesOfDataset(db, datasetId).filter((d) => d.kind === 'gpu');
  const segs = ds.segments.map((segment) => {
    const energy = datasetEnergy(db, datasetId, segment.t_start, segment.t_end);
    const dur = segment.t_end - segment.t_start;
    const throughput = segment.units_count !== null && dur > 0 ? segment.units_count / dur / Math.max(1, gpus.length) : null;
    const efficiency = segment.units_count !== null && energy.energy_j ? segment.units_count / energy.energy_j : null;
    return { segment, energy, throughput, efficiency };
  });
  const runnable = ds.segments.filter((s) => s.cap_w !== null && s.units_count !== null);
  let sweep: AnalysisResult | null = null;
  if (runnable.length > 0) {
    const model = [...new Set(gpus.map((g) => g.name))].join(' + ') || 'imported device';
    const runs: AnalysisRunInput[] = runnable.map((s, i) => ({
      run_id: s.id,
      workload: s.workload ?? ds.name,
      device_model: model,
      cap_w: s.cap_w!,
      repetition: 1 + runnable.slice(0, i).filter((o) => o.cap_w === s.cap_w && (o.workload ?? ds.name) === (s.workload ?? ds.name)).length,
      order: i,
      status: 'done',
      started_at: s.t_start,
      warmup_end: s.t_start,
      window: { start: s.t_start, end: s.t_end },
      units: s.units,
      units_in_window: s.units_count,
      steps: [],
      gpus: Math.max(1, gpus.length),
      devices: gpus.map((g) => ({ device_id: g.key, name: g.name, samples: samplesInRange(db, g.id, s.t_start - 5, s.t_end + 5).map(toSeriesSample) })),
      cpu: [],
      enforced_limit_w: null,
    }));
    sweep = analyzeSweep({ sweep_id: null, name: ds.name, runs }, opts);
  } else if (ds.segments.length) warnings.push('no segment carries a cap and work units: per-cap curves need both (set them on the dataset page or with caplab datasets)');
  return { dataset_id: ds.id, name: ds.name, segments: segs, sweep, warnings };
}

