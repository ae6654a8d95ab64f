// Offline analysis of an imported dataset: energy over any range or segment, and the sweep analysis of its
// segments (each a source, exactly like a run: sources.ts), where they carry a cap and work units.
import { analyzeSweep } from '../../../core/analysis/analyze';
import type { AnalysisOptionsInput, AnalysisResult } from '../../../shared/analysis';
import type { DatasetRecord, Segment } from '../../../shared/dataset';
import { energyInRange, LoadError } from '../analysis/load';
import type { RangeEnergy } from '../../../shared/analysis';
import { loadSources } from '../analysis/sources';
import type { Db } from '../store/db';
import { datasetRecord } from '../store/dataset-records';

export function loadDataset(db: Db, id: number): DatasetRecord {
  const ds = datasetRecord(db, id);
  if (!ds) throw new LoadError(`no dataset ${id} in this database`);
  return ds;
}

/** Energy of a dataset's GPUs over [from, to]. */
export function datasetEnergy(db: Db, datasetId: number, from: number, to: number): RangeEnergy {
  return energyInRange(db, from, to, undefined, datasetId);
}

export interface SegmentEnergy {
  segment: Segment;
  energy: RangeEnergy;
  /** Work units per second per GPU over the segment; null without units. */
  throughput: number | null;
  /** Work units per joule of GPU energy; null without units or energy. */
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
    const dur = segment.end - segment.start;
    const units = segment.units_in_window;
    return {
      segment,
      energy,
      throughput: units !== null && dur > 0 ? units / dur / Math.max(1, gpus) : null,
      efficiency: units !== null && energy.energy_j ? units / energy.energy_j : null,
    };
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
