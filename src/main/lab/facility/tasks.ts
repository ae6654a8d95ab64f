import { buildModel, type BuiltModel, type ScenarioInput } from '../../../core/facility/model';
import { runReplica, simulate, type ReplicaResult } from '../../../core/facility/run';
import { writeProfileCsv } from './csv';

/** Work a facility worker (or the main thread) does: one try of a level's load search, or one replica at a load. */
export type FacilityTask =
  | { kind: 'util'; sc: ScenarioInput; load: number; seed: number }
  | { kind: 'replica'; sc: ScenarioInput; load: number; seed: number; csvFile?: string; keepFull?: boolean };

export type FacilityTaskResult = { kind: 'util'; utilization: number } | { kind: 'replica'; replica: ReplicaResult };

/** The last built model is reused while a worker's tasks stay on one scenario (profiles resampled once). */
let last: { key: string; model: BuiltModel } | null = null;

function modelOf(sc: ScenarioInput): BuiltModel {
  const key = JSON.stringify(sc.config);
  if (last?.key !== key) last = { key, model: buildModel(sc) };
  return last.model;
}

export function runTask(t: FacilityTask): FacilityTaskResult {
  const b = modelOf(t.sc);
  if (t.kind === 'util') return { kind: 'util', utilization: simulate(b, t.load, t.seed, false).utilization };
  const replica = runReplica(t.sc, b, t.load, t.seed, t.csvFile !== undefined || t.keepFull === true);
  if (t.csvFile && replica.full) writeProfileCsv(t.csvFile, t.sc.config.start, t.sc.config.step_s, t.sc.config.nodes, replica.full);
  if (!t.keepFull) delete replica.full;
  return { kind: 'replica', replica };
}
