// The sbatch job-array script of a cluster sweep: one readable file the user can keep and resubmit. Each shard's
// plan is written into the script itself, so the script alone says what every task runs.
import { resolve } from 'node:path';
import { planToYaml } from '../sweep/plan-file';
import type { Shard, ShardBy } from '../../../core/cluster/shard';
import { LabError } from '../../../shared/errors';

export interface ScriptOptions {
  name: string;
  /** Job folder on shared storage (results/, logs/), absolute. */
  jobDir: string;
  /** Most tasks running at once: one per node. */
  nodes: number;
  shardBy: ShardBy;
  shards: readonly Shard[];
  partition?: string;
  gpusPerNode?: string;
  time?: string;
  account?: string;
  /** argv of the CapLab CLI on the nodes (node + bin/caplab.mjs), absolute paths. */
  caplab: readonly string[];
  /** The user's workload definitions folder, so tasks find the same definitions as the submitting shell. */
  workloadsDir: string;
  version: string;
  createdAt: Date;
}

/** Single-quoted for bash: nothing inside is expanded. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const SLURM_VALUE = /^[A-Za-z0-9_.:,@%+=/-]+$/;

/** A submit option that cannot go into the script as given. */
export class ScriptOptionError extends LabError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'ScriptOptionError';
  }
}

/** Checks a value that goes on an #SBATCH line (no spaces or shell syntax there). */
export function sbatchValue(flag: string, v: string): string {
  if (!SLURM_VALUE.test(v)) throw new ScriptOptionError(`--${flag} "${v}": only letters, digits and _ . : , @ % + = / - are allowed`);
  return v;
}

const DELIM = 'CAPLAB_SHARD_PLAN';

export function renderScript(o: ScriptOptions): string {
  const jobName = `caplab-${o.name.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'sweep'}`;
  const last = o.shards.length - 1;
  const sbatch = [
    `#SBATCH --job-name=${jobName}`,
    `#SBATCH --array=0-${last}%${o.nodes}`,
    '#SBATCH --nodes=1',
    '#SBATCH --ntasks=1',
    // Power limits are per GPU but node-wide in effect (shared power and cooling): a task owns its node.
    '#SBATCH --exclusive',
    `#SBATCH --output=${resolve(o.jobDir, 'logs')}/task-%a.out`,
    ...(o.partition ? [`#SBATCH --partition=${sbatchValue('partition', o.partition)}`] : []),
    ...(o.gpusPerNode ? [`#SBATCH --gpus-per-node=${sbatchValue('gpus-per-node', o.gpusPerNode)}`] : []),
    ...(o.time ? [`#SBATCH --time=${sbatchValue('time', o.time)}`] : []),
    ...(o.account ? [`#SBATCH --account=${sbatchValue('account', o.account)}`] : []),
  ];
  const cases = o.shards.flatMap((s) => [
    `    ${s.index}) cat <<'${DELIM}'`,
    ...planToYaml(s.plan).trimEnd().split('\n'),
    DELIM,
    '      ;;',
  ]);
  return [
    '#!/bin/bash',
    `# CapLab cluster sweep "${o.name.replace(/\n/g, ' ')}", written by caplab ${o.version} on ${o.createdAt.toISOString()}.`,
    `# ${o.shards.length} array task(s), shard_by: ${o.shardBy}, at most ${o.nodes} at once, each on a node of its own.`,
    '# Each task runs CapLab\'s own sweep of its shard on its node\'s GPUs: limits are journalled on the node before',
    '# the first change and restored at the end, on scancel (SIGTERM), and by the next CapLab start on the node after',
    '# a kill. Results: results/task-<index>.json in the job folder; merge them with `caplab cluster collect JOB`.',
    ...sbatch,
    'set -euo pipefail',
    '',
    `JOB_DIR=${shellQuote(resolve(o.jobDir))}`,
    'NODE_NAME="${SLURMD_NODENAME:-$(hostname -s)}"',
    '# Node-local state, never on shared storage: the database holding this node\'s cap journal, simulated GPUs.',
    'NODE_DIR="${CAPLAB_NODE_DIR:-/var/tmp/caplab-$(id -un)}/$NODE_NAME"',
    'mkdir -p "$NODE_DIR" "$JOB_DIR/results"',
    'export CAPLAB_DATA_DIR="$NODE_DIR" CAPLAB_DB="$NODE_DIR/caplab.db" CAPLAB_SIM_STATE_DIR="$NODE_DIR/sim" CAPLAB_SIM_NODE="$NODE_NAME"',
    // Quoted in a variable of its own: inside ${VAR:-...} a `}` in the path would end the default early.
    `SUBMIT_WORKLOADS_DIR=${shellQuote(o.workloadsDir)}`,
    'export CAPLAB_WORKLOADS_DIR="${CAPLAB_WORKLOADS_DIR:-$SUBMIT_WORKLOADS_DIR}"',
    'TASK="$SLURM_ARRAY_TASK_ID"',
    '',
    'shard_plan() {',
    '  case "$1" in',
    ...cases,
    '    *) echo "caplab: this script has no shard $1" >&2; return 2 ;;',
    '  esac',
    '}',
    '',
    'PLAN="$NODE_DIR/shard-${SLURM_ARRAY_JOB_ID}-${TASK}.yaml"',
    'shard_plan "$TASK" > "$PLAN"',
    '# exec: the sweep is the batch step itself, so scancel\'s SIGTERM reaches it and it restores the limits.',
    `exec ${o.caplab.map(shellQuote).join(' ')} cluster task "$PLAN" --task "$TASK" --out "$JOB_DIR/results/task-$TASK.json"`,
    '',
  ].join('\n');
}
