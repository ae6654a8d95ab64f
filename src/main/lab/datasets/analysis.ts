// Offline analysis of an imported dataset: each segment's energy (analysis/dataset-energy.ts), and the sweep
// analysis of its segments (each a source, exactly like a run: sources.ts), where they carry a cap and work units.
// Such a segment's samples are read once for both: its energy and its run input read the same padded window.
import { analyzeSweep } from '../../../core/analysis/analyze';
import type { AnalysisResult } from '../../../shared/analysis';
import { withCost, type CostedAnalysisOptions } from '../analysis/cost';
import { deviceKindWords, energyKindOf } from '../../../shared/dataset';
import { datasetEnergy, loadDataset } from '../analysis/dataset-energy';
import { loadSources } from '../analysis/sources';
import { runFigures } from '../../../core/analysis/figures';
import { energyBasis } from '../../../shared/energy-basis';
import { Plan } from '../../../shared/plan';
import { analysableSegments, type DatasetAnalysis } from '../../../shared/dataset-analysis';
import type { Db } from '../store/db';
import { readSamples, type ReadSamples } from '../store/sample-blocks';

/** The node overhead when none is given: the plan schema's default, as for sweeps. */
const DEFAULT_OVERHEAD_W = Plan.shape.overhead_w.parse(undefined);

/** readSamples that decodes each stream's window once and hands later asks the same rows (no reader changes them). */
function readOnce(): ReadSamples {
  const read = new Map<string, ReturnType<ReadSamples>>();
  return (db, stream, from, to) => {
    const key = `${stream} ${from} ${to}`;
    let rows = read.get(key);
    if (!rows) read.set(key, (rows = readSamples(db, stream, from, to)));
    return rows;
  };
}

export function analyzeDataset(db: Db, datasetId: number, costed: CostedAnalysisOptions = {}): DatasetAnalysis {
  const { tariff, ...opts } = costed;
  const ds = loadDataset(db, datasetId);
  const warnings: string[] = [];
  const gpus = ds.devices.filter((d) => d.kind === 'gpu').length;
  // Node-level or facility power already holds the CPUs and the rest of the node: no overhead on top.
  const power = energyKindOf(ds.devices.map((d) => d.kind));
  const wholeNode = power === 'node' || power === 'facility';
  if (wholeNode) warnings.push(`the dataset's power is ${deviceKindWords[power]}: efficiency is work per joule of that power, with no node overhead added`);
  const runnable = analysableSegments(ds);
  // Only the segments analysed as runs go through the memo: the others' samples are dropped once their energy is known.
  const once = readOnce();
  const runs = new Set(runnable);
  const segments = ds.segments.map((segment) => {
    const energy = datasetEnergy(db, datasetId, segment.start, segment.end, undefined, runs.has(segment) ? once : readSamples);
    // The one definition of a run's figures (src/core/analysis/figures.ts): node energy = GPUs + the overhead.
    const overhead_w = wholeNode ? 0 : (opts.overhead_w ?? DEFAULT_OVERHEAD_W);
    const f = runFigures({
      duration_s: segment.end - segment.start,
      units_in_window: segment.units_in_window,
      gpus: Math.max(1, gpus),
      gpu: energy.devices,
      cpu: [],
      overhead_w,
      use_measured_cpu: false,
    });
    const efficiency_basis = energyBasis({ measured_cpu: 0, total: 1, overhead_w, whole_node: wholeNode ? power : null });
    const efficiency_gpu_only = segment.units_in_window !== null && energy.energy_j ? segment.units_in_window / energy.energy_j : null;
    return { segment, energy, throughput: f.throughput, efficiency: f.efficiency, efficiency_basis, efficiency_gpu_only };
  });
  let sweep: AnalysisResult | null = null;
  if (runnable.length > 0) {
    const input = loadSources(
      db,
      runnable.map((s) => ({ kind: 'segment' as const, segment_id: s.id })),
      { name: ds.name, read: once },
    );
    sweep = withCost(analyzeSweep(input, opts), tariff);
  } else if (ds.segments.length) warnings.push('no segment carries a cap and work units: per-cap curves need both (set them on the dataset page)');
  return { dataset_id: ds.id, name: ds.name, segments, sweep, warnings };
}
