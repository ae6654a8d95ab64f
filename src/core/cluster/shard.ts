// Splitting a sweep plan into the shards of a Slurm job array: one shard per array task, each task on a node
// of its own. Pure: the same plan and node count always give the same shards.
import { PLAN_LIMITS, planCaps, type Plan } from '../../shared/plan';
import { LabError } from '../../shared/errors';

export type ShardBy = 'node' | 'caps' | 'repetitions';

export interface Shard {
  /** The array task index (0-based). */
  index: number;
  plan: Plan;
  /** Added to the shard's repetition numbers to give the whole plan's (repetition sharding). */
  repetition_offset: number;
}

export class ShardError extends LabError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'ShardError';
  }
}

function shardName(plan: Plan, i: number, n: number): string {
  return `${plan.name} [shard ${i + 1}/${n}]`;
}

/**
 * node: `nodes` tasks, each running the whole plan (the node-to-node comparison). caps: one task per cap.
 * repetitions: one task per repetition. The array runs at most `nodes` tasks at once, one per node, and Slurm
 * hands the next task to whichever node comes free.
 */
export function shardPlan(plan: Plan, nodes: number): Shard[] {
  // Bounded like a plan's runs: shard_by node makes one task per node, listed before anything is submitted.
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > PLAN_LIMITS.max_runs) throw new ShardError(`--nodes must be a whole number from 1 to ${PLAN_LIMITS.max_runs}, got ${nodes}`);
  const by: ShardBy = plan.cluster?.shard_by ?? 'node';
  if (by === 'node') {
    return Array.from({ length: nodes }, (_, i) => ({ index: i, plan: { ...plan, name: shardName(plan, i, nodes) }, repetition_offset: 0 }));
  }
  if (by === 'caps') {
    if (!Array.isArray(plan.caps) && 'adaptive' in plan.caps) {
      throw new ShardError('cluster.shard_by: caps cannot split adaptive caps (the refinement needs every cap on one node); use shard_by: node or repetitions');
    }
    const caps = planCaps(plan.caps);
    return caps.map((c, i) => ({ index: i, plan: { ...plan, name: shardName(plan, i, caps.length), caps: [c] }, repetition_offset: 0 }));
  }
  const n = plan.repetitions;
  // Each shard draws its own randomised order: the same seed would give every task the same sequence.
  return Array.from({ length: n }, (_, i) => ({ index: i, plan: { ...plan, name: shardName(plan, i, n), repetitions: 1, seed: plan.seed + i }, repetition_offset: i }));
}
