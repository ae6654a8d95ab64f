import { readFileSync } from 'node:fs';
import { CliError, defineCommand, numberOpt, printJson, stringOpt, type CliArgs, type CliIO } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { fixed, table } from '../format';
import { planFromYaml, prepareJob, readPlanFile, type Engine } from '../../lab';
import { startClusterTask } from '../cluster-task';
import type { NodeAnalysis } from '../../../shared/cluster';

const USAGE = [
  'cluster submit PLAN.yaml --nodes N [--partition P] [--gpus-per-node G] [--time T] [--account A] [--dir DIR] [--dry-run] [--db FILE] [--json]',
  '       caplab cluster status JOB [--json]      Slurm state of every array task, runs done',
  '       caplab cluster collect JOB [--json]     merge the tasks\' results into the lab database (idempotent)',
  '       caplab cluster cancel JOB [--wait] [--json]   scancel; every node restores its own limits',
  '       caplab cluster nodes SWEEP_ID [--json]  node-to-node analysis: spread across nodes and GPUs, outliers, best caps',
].join('\n');

async function withEngine<T>(args: CliArgs, io: CliIO, f: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await openEngine(args, io);
  try {
    return await f(engine);
  } finally {
    await engine.close();
  }
}

function positional(args: CliArgs, i: number, what: string): string {
  const v = args.positionals[i];
  if (!v) throw new CliError(`give ${what}:\n  caplab ${USAGE}`);
  return v;
}

async function submit(args: CliArgs, io: CliIO): Promise<number> {
  const file = positional(args, 1, 'a plan file');
  const nodes = numberOpt(args, 'nodes');
  if (nodes === undefined) throw new CliError('--nodes N is required: how many nodes the array runs on at once');
  const plan = readPlanFile(file);
  const prepared = prepareJob(plan, {
    nodes,
    partition: stringOpt(args, 'partition'),
    gpusPerNode: stringOpt(args, 'gpus-per-node'),
    time: stringOpt(args, 'time'),
    account: stringOpt(args, 'account'),
    dir: stringOpt(args, 'dir'),
    env: io.env,
  });
  if (args.values['dry-run']) {
    // The script exactly as it would be submitted; nothing is written and nothing submitted.
    if (args.values.json) printJson(io, { dry_run: true, dir: prepared.dir, tasks: prepared.manifest.shards.length, shard_by: prepared.manifest.shard_by, script: prepared.script });
    else io.stdout.write(prepared.script);
    io.stderr.write(`caplab: dry run: ${prepared.manifest.shards.length} array task(s); nothing written or submitted (job folder would be ${prepared.dir})\n`);
    return 0;
  }
  return withEngine(args, io, async (engine) => {
    const jobId = await engine.submitClusterJob(prepared);
    const out = { job_id: jobId, dir: prepared.dir, script: `${prepared.dir}/job.sbatch`, tasks: prepared.manifest.shards.length, shard_by: prepared.manifest.shard_by, nodes };
    if (args.values.json) printJson(io, out);
    else io.stdout.write(`submitted job ${jobId}: ${out.tasks} array task(s), shard_by ${out.shard_by}, at most ${nodes} at once\n  script: ${out.script}\n  results: ${prepared.dir}/results\n  then: caplab cluster status ${jobId}; caplab cluster collect ${jobId}\n`);
    return 0;
  });
}

async function status(args: CliArgs, io: CliIO): Promise<number> {
  const job = positional(args, 1, 'a job id or job folder');
  return withEngine(args, io, async (engine) => {
    const s = await engine.clusterStatus({ job });
    if (args.values.json) printJson(io, s);
    else
      io.stdout.write(
        `job ${s.job_id} "${s.name}": ${s.state}, ${s.runs_done}/${s.run_count} runs (${s.source})\n` +
          table(['task', 'state', 'node', 'host', 'runs', 'result', 'driver'], s.tasks.map((t) => [t.task, t.state, t.node, t.hostname, `${t.runs_done}/${t.run_count}`, t.result_status, t.drivers.join(', ')])) +
          '\n',
      );
    return 0;
  });
}

async function collect(args: CliArgs, io: CliIO): Promise<number> {
  const job = positional(args, 1, 'a job id or job folder');
  return withEngine(args, io, async (engine) => {
    const c = await engine.collectCluster({ job });
    for (const w of c.warnings) io.stderr.write(`caplab: ${w}\n`);
    if (args.values.json) printJson(io, c);
    else
      io.stdout.write(
        `job ${c.job_id} -> sweep ${c.sweep_id} (${c.status}): ${c.runs_done}/${c.runs} runs from ${c.tasks_found}/${c.tasks} task(s), ${c.changed} new or updated\n` +
          table(['node', 'host', 'GPUs', 'driver'], c.nodes.map((n) => [n.node, n.hostname, n.gpus.join('; '), n.drivers.join(', ')])) +
          '\n',
      );
    return 0;
  });
}

async function cancel(args: CliArgs, io: CliIO): Promise<number> {
  const job = positional(args, 1, 'a job id or job folder');
  return withEngine(args, io, async (engine) => {
    const r = await engine.cancelCluster({ job, wait: args.values.wait === true });
    if (args.values.json) printJson(io, r);
    else io.stdout.write(`cancelled job ${r.job_id}${r.remaining ? `; ${r.remaining} task(s) still stopping (each restores its node's limits)` : ''}\n`);
    return 0;
  });
}

function printNodes(io: CliIO, a: NodeAnalysis): void {
  for (const g of a.groups) {
    io.stdout.write(`${g.workload}: nodes ${g.nodes.join(', ')}; fleet best cap ${g.fleet_best_cap.cap_w ?? '-'} W; outlier nodes: ${g.outlier_nodes.join(', ') || 'none'}\n`);
    io.stdout.write(
      table(
        ['cap W', 'nodes', 'throughput spread', 'power spread', 'efficiency spread', 'GPU power spread', 'outliers'],
        g.caps.map((c) => [
          c.cap_w,
          c.per_node.length,
          fixed(c.throughput.range_rel === null ? null : c.throughput.range_rel * 100, 1) + ' %',
          fixed(c.power_w.range_rel === null ? null : c.power_w.range_rel * 100, 1) + ' %',
          fixed(c.efficiency.range_rel === null ? null : c.efficiency.range_rel * 100, 1) + ' %',
          fixed(c.gpu_power_w.range_rel === null ? null : c.gpu_power_w.range_rel * 100, 1) + ' %',
          c.outliers.map((o) => `${o.node} ${o.metric}`).join(', '),
        ]),
      ) + '\n',
    );
    io.stdout.write(table(['node', 'best cap W', 'units/J'], g.best_cap_per_node.map((b) => [b.node, b.cap_w, fixed(b.efficiency, 4)])) + '\n');
  }
  for (const n of a.notes) io.stderr.write(`caplab: ${n}\n`);
}

async function nodes(args: CliArgs, io: CliIO): Promise<number> {
  const id = Number(positional(args, 1, 'a sweep id'));
  if (!Number.isInteger(id)) throw new CliError(`sweep id must be a whole number, got "${args.positionals[1]}"`);
  return withEngine(args, io, async (engine) => {
    const a = await engine.analyzeNodes({ sweep_id: id });
    if (args.values.json) printJson(io, a);
    else printNodes(io, a);
    return 0;
  });
}

/** Inside the job: the shard's sweep on this node (the script passes the plan file, the task index and the results file). */
async function task(args: CliArgs, io: CliIO): Promise<number> {
  const file = positional(args, 1, 'the shard plan file');
  const out = stringOpt(args, 'out');
  const index = numberOpt(args, 'task');
  if (!out || index === undefined) throw new CliError('cluster task needs --task I and --out FILE');
  const plan = planFromYaml(readFileSync(file, 'utf8'), file);
  const engine = await openEngine(args, io, { restoreOnOpen: true });
  let signalled: NodeJS.Signals | null = null;
  let running: { cancel(): void } | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) return;
    signalled = sig;
    io.stderr.write(`caplab: ${sig}: cancelling the shard's sweep and restoring this node's power limits…\n`);
    running?.cancel();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const t = await startClusterTask({ engine, plan, task: index, out, env: io.env, log: (l) => io.stderr.write(`caplab: ${l}\n`) });
    running = t;
    if (signalled) t.cancel();
    const status = await t.done;
    io.stderr.write(`caplab: task ${index}: ${status}; results in ${out}\n`);
    if (signalled) return signalled === 'SIGINT' ? 130 : 143;
    return status === 'done' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await engine.close();
  }
}

const subcommands: Record<string, (args: CliArgs, io: CliIO) => Promise<number>> = { submit, status, collect, cancel, nodes, task };

export const clusterCommand = defineCommand({
  name: 'cluster',
  summary: 'Sweeps across a Slurm cluster: submit a plan as a job array, status, collect, cancel, node-to-node analysis',
  usage: USAGE,
  options: {
    ...dbOption,
    ...jsonOption,
    nodes: { type: 'string' },
    partition: { type: 'string' },
    'gpus-per-node': { type: 'string' },
    time: { type: 'string' },
    account: { type: 'string' },
    dir: { type: 'string' },
    'dry-run': { type: 'boolean' },
    wait: { type: 'boolean' },
    task: { type: 'string' },
    out: { type: 'string' },
  },
  flags: {
    nodes: { value: 'N', text: 'cluster submit: how many nodes the job array runs on at once (required).', example: '--nodes 4' },
    partition: { value: 'P', text: 'cluster submit: Slurm partition (sbatch --partition).', default: 'Slurm\'s default', example: '--partition gpu' },
    'gpus-per-node': { value: 'G', text: 'cluster submit: GPUs per node to request (sbatch --gpus-per-node).', default: 'none requested', example: '--gpus-per-node 8' },
    time: { value: 'T', text: 'cluster submit: time limit of each array task (sbatch --time).', default: 'Slurm\'s default', example: '--time 02:00:00' },
    account: { value: 'A', text: 'cluster submit: Slurm account to charge (sbatch --account).', default: 'Slurm\'s default', example: '--account proj42' },
    dir: { value: 'DIR', text: 'cluster submit: the job folder (script, plan, manifest, logs, results).', default: './caplab-jobs/<plan name>-<time>', example: '--dir /shared/caplab/job1' },
    'dry-run': { text: 'cluster submit: print the sbatch script and write or submit nothing.', default: 'off' },
    wait: { text: 'cluster cancel: wait until Slurm lists none of the job\'s tasks.', default: 'off' },
    task: { value: 'I', text: 'Internal (cluster task, run by the job script on each node): the array task index.', example: '--task 0' },
    out: { value: 'FILE', text: 'Internal (cluster task, run by the job script on each node): the task\'s results file.', example: '--out results/task-0.json' },
  },
  examples: ['caplab cluster submit my-plan.yaml --nodes 4 --partition gpu --time 02:00:00 --dry-run', 'caplab cluster status 12345', 'caplab cluster collect 12345 --json', 'caplab cluster cancel 12345 --wait', 'caplab cluster nodes 7'],
  async run(args, io) {
    const sub = args.positionals[0];
    const f = sub ? subcommands[sub] : undefined;
    if (!f) throw new CliError(`${sub ? `unknown subcommand "${sub}"` : 'give a subcommand'}; usage:\n  caplab ${USAGE}`);
    return f(args, io);
  },
});


