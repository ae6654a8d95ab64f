// Loads a sweep's runs with the node each ran on and their per-GPU figures, for the node-to-node analysis.
import type { Db } from '../store/db';
import { getSweep, runsOfSweep } from '../store/sweeps';
import { runGpuFiguresReader } from '../store/devices';
import { analyzeNodes, type NodeRunInput } from '../../../core/analysis/nodes';
import type { NodeAnalysis } from '../../../shared/cluster';
import { nodeOfRuns } from '../store/cluster-jobs';
import { LabError } from '../../../shared/errors';

export class NodeAnalysisError extends LabError {
  constructor(message: string) {
    super('not_found', message);
    this.name = 'NodeAnalysisError';
  }
}

export function analyzeSweepNodes(db: Db, sweepId: number): NodeAnalysis {
  const sweep = getSweep(db, sweepId);
  if (!sweep) throw new NodeAnalysisError(`no sweep ${sweepId}`);
  const nodes = nodeOfRuns(db, sweepId);
  const gpusOf = runGpuFiguresReader(db);
  const runs: NodeRunInput[] = runsOfSweep(db, sweepId).map((r) => ({
    // A sweep run on one machine is one node: its host.
    node: nodes.get(r.id)?.node ?? sweep.host,
    workload: r.workload,
    cap_w: r.cap_w,
    status: r.status,
    throughput: r.throughput,
    mean_power_w: r.mean_power_w,
    efficiency: r.efficiency,
    gpus: gpusOf(r.id).map((g) => ({ index: g.idx, uuid: g.uuid, power_w: g.power_w, energy_j: g.energy_j })),
  }));
  return analyzeNodes(sweepId, runs);
}
