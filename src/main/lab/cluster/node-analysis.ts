// Loads a sweep's runs with the node each ran on and their per-GPU figures, for the node-to-node analysis.
import type { Db } from '../store/db';
import { getSweep, runsOfSweep } from '../store/sweeps';
import { analyzeNodes, type NodeRunInput } from '../../../core/analysis/nodes';
import type { NodeAnalysis } from '../../../shared/cluster';
import { nodeOfRuns } from './jobs-store';
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
  const gpuStmt = db.prepare(
    `SELECT d.idx AS idx, d.uuid AS uuid, rd.mean_power_w AS power_w, rd.energy_j AS energy_j
     FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = ? AND d.kind = 'gpu' ORDER BY d.idx`,
  );
  const runs: NodeRunInput[] = runsOfSweep(db, sweepId).map((r) => ({
    // A sweep run on one machine is one node: its host.
    node: nodes.get(r.id)?.node ?? sweep.host,
    workload: r.workload,
    cap_w: r.cap_w,
    status: r.status,
    throughput: r.throughput,
    mean_power_w: r.mean_power_w,
    efficiency: r.efficiency,
    gpus: (gpuStmt.all(r.id) as { idx: number; uuid: string | null; power_w: number | null; energy_j: number | null }[]).map((g) => ({ index: g.idx, uuid: g.uuid, power_w: g.power_w, energy_j: g.energy_j })),
  }));
  return analyzeNodes(sweepId, runs);
}
