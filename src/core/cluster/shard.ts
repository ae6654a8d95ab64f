// Splitting a sweep plan into the shards of a Slurm job array: one shard per array task, each task on a node
// of its own. Pure: the same plan and node count always give the same shards.
import { planCaps, type Plan } from '../../shared/plan';

export type ShardBy = 'node' | 'caps' | 'repetitions';

export interface Shard {
  /** The array task index (0-based). */
  index: number;
  plan: Plan;
  /** Added to the shard's repetition numbers to give the whole plan's (repetition sharding). */
  repetition_offset: number;
}

export class ShardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShardError';
  }
}

function shardName(plan: Plan, i: number, n: number): string {
  return `${plan.name} [shard ${i + 1}/${n}]`;
}

/**
 * node: every one of `nodes` tasks runs the whole plan. caps: the plan's caps are dealt out round-robin in
 * ascending order, so each node gets low and high caps. repetitions: the repetitions are split as evenly as
 * possible. Tasks that would get nothing are not made (4 caps on 8 nodes give 4 tasks).
 */
export function shardPlan(plan: Plan, nodes: number): Shard[] {
  if (!Number.isInteger(nodes) || nodes < 1) throw new ShardError(`--nodes must be a whole number >= 1, got ${nodes}`);
  const by: ShardBy = plan.cluster?.shard_by ?? 'node';
  if (by === 'node') {
    return Array.from({ length: nodes }, (_, i) => ({ index: i, plan: { ...plan, name: shardName(plan, i, nodes) }, repetition_offset: 0 }));
  }
  if (by === 'caps') {
    if (!Array.isArray(plan.caps) && 'adaptive' in plan.caps) {
      throw new ShardError('cluster.shard_by: caps cannot split adaptive caps (the refinement needs every cap on one node); use shard_by: node or repetitions');
    }
    const caps = planCaps(plan.caps);
    const groups = Array.from({ length: Math.min(nodes, caps.length) }, () => [] as number[]);
    caps.forEach((c, i) => groups[i % groups.length]!.push(c));
    return groups.map((g, i) => ({ index: i, plan: { ...plan, name: shardName(plan, i, groups.length), caps: g }, repetition_offset: 0 }));
  }
  const n = Math.min(nodes, plan.repetitions);
  const base = Math.floor(plan.repetitions / n);
  const extra = plan.repetitions % n;
  let offset = 0;
  return Array.from({ length: n }, (_, i) => {
    const reps = base + (i < extra ? 1 : 0);
    // Each shard draws its own randomised order: the same seed would give every node the same sequence.
    const shard = { index: i, plan: { ...plan, name: shardName(plan, i, n), repetitions: reps, seed: plan.seed + i }, repetition_offset: offset };
    offset += reps;
    return shard;
  });
}
