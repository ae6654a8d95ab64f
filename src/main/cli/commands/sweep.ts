import { backendUsage } from '../../../shared/backends';
import { CliError, defineCommand, printJson, type CliArgs, type CliIO } from '../command';
import { formatDuration } from '../../../shared/units';
import { backendOpt, backendOption, dbOption, describeRestores, jsonOption, openEngine } from '../open-engine';
import { LeaseHeldError, PlanError, readPlan, readPlanValue, type CheckedPlan } from '../../lab';
import { fixed, printable, progressBar, table } from '../format';
import type { EventPayload, LabEventListener } from '../../../shared/api';
import type { RunRecord } from '../../../shared/records';

/** The per-run JSON entry of `caplab sweep --json`: a public scripting interface (add fields, never rename). */
function runJson(r: RunRecord) {
  return {
    run_id: r.id,
    workload: r.workload,
    cap_w: r.cap_w,
    repetition: r.repetition,
    order: r.order,
    status: r.status,
    error: r.error,
    units: r.units,
    throughput: r.throughput,
    mean_power_w: r.mean_power_w,
    energy_j: r.energy_j,
    efficiency: r.efficiency,
    energy_sensor: r.energy_sensor,
    enforced_limit_w: r.enforced_limit_w,
    measure_start: r.measure_start,
    measure_end: r.measure_end,
    reason: r.reason,
    adaptive: r.adaptive,
  };
}

function progressPrinter(io: CliIO): LabEventListener {
  const tty = io.stderr.isTTY === true;
  let lastDraw = 0;
  return (name, p) => {
    if (name === 'sweep.progress') {
      // Why each run is done (first pass, refinement, a sequential repetition), once per run, also without a terminal.
      if (p.reason && p.phase === 'setting-cap') io.stderr.write(`${tty ? '\r\x1b[2K' : ''}cap ${p.cap_w} W: ${p.reason}\n`);
      if (!tty || Date.now() - lastDraw < 100) return;
      lastDraw = Date.now();
      const label = p.workload ? `run ${Math.min(p.runs_done + 1, p.run_count)}/${p.run_count} ${p.workload} @ ${p.cap_w} W rep ${p.repetition}: ${p.phase}` : '';
      const width = Math.max(10, Math.min(40, (io.stderr.columns ?? 80) - label.length - 10));
      io.stderr.write(`\r\x1b[2K${progressBar(p.fraction, width, label)}`);
    } else if (name === 'run.finished') {
      const { run } = p;
      const line =
        run.status === 'done'
          ? `${run.workload} @ ${run.cap_w} W rep ${run.repetition}: ${fixed(run.throughput, 2)} ${run.units ?? 'units'}/s per GPU, ${fixed(run.mean_power_w, 1)} W, ${fixed(run.efficiency, 4)} units/J`
          : `${run.workload} @ ${run.cap_w} W rep ${run.repetition}: ${run.status}${run.error ? ` — ${run.error.split('\n')[0]}` : ''}`;
      io.stderr.write(`${tty ? '\r\x1b[2K' : ''}${line}\n`);
    }
  };
}

/** `--check`: the plan's warnings (with this database's earlier runs) and its estimate; nothing runs, nothing is written. */
async function checkOnly(checked: CheckedPlan, file: string, args: CliArgs, io: CliIO): Promise<number> {
  const engine = await openEngine(args, io, { readOnly: true, optionalDb: true });
  try {
    const v = engine.validateChecked(checked);
    if (args.values.json) printJson(io, v);
    else {
      for (const w of v.warnings) io.stderr.write(`caplab: warning: ${file}: ${w.path}: ${w.message}\n`);
      io.stdout.write(`${file}: plan is valid${v.warnings.length ? `, with ${v.warnings.length} warning${v.warnings.length === 1 ? '' : 's'}` : ''}: ${v.run_count} runs, about ${v.estimate_s === null ? '?' : formatDuration(v.estimate_s)} (${v.estimate_basis ?? 'no estimate'})\n`);
    }
    return v.ok ? 0 : 2;
  } finally {
    await engine.close();
  }
}

export const sweepCommand = defineCommand({
  name: 'sweep',
  summary: 'Run a power-cap sweep from a plan file (workloads x caps x repetitions)',
  usage: `sweep PLAN.yaml [--backend ${backendUsage}] [--db FILE] [--wait] [--check] [--json]`,
  options: { ...backendOption, ...dbOption, ...jsonOption, wait: { type: 'boolean' }, check: { type: 'boolean' } },
  flags: {
    wait: { text: 'When another sweep holds one of the plan\'s devices, wait until it is free instead of refusing (says whom it waits for).', default: 'off (refuse, naming the owner)' },
    check: { text: 'Only check the plan: print its problems, warnings (with what earlier runs in the database and the simulator know of each workload) and estimated duration, run nothing, write nothing. Exit 2 for problems, 0 otherwise; --json prints what the API\'s validatePlan returns.', default: 'off (run the sweep)' },
  },
  examples: ['caplab sweep resources/plans/demo-sim.yaml', 'caplab sweep my-plan.yaml --backend nvml --db ./lab.db', 'caplab sweep my-plan.yaml --json > sweep.json'],
  async run(args, io) {
    const file = args.positionals[0];
    if (!file) throw new CliError('give a plan file: caplab sweep PLAN.yaml');
    let plan: unknown;
    try {
      plan = readPlanValue(file);
    } catch (e) {
      if (e instanceof PlanError) throw new CliError(e.message);
      throw e;
    }
    // Every problem of the plan at once (schema, workloads, devices, caps), before the database is even opened. The
    // plan is read once: the sweep runs on the backend it was checked on (beginSweep takes it over).
    const checked = await readPlan(plan, { backend: backendOpt(args), env: io.env });
    if (checked.issues.length || args.values.check) {
      try {
        // `--check --json` answers as validatePlan does, a refused plan's issues at their fields included.
        if (checked.issues.length && !(args.values.check && args.values.json)) throw new CliError(PlanError.of(file, checked.issues).message);
        return await checkOnly(checked, file, args, io);
      } finally {
        await checked.close();
      }
    }
    let engine;
    try {
      engine = await openEngine(args, io, { restoreOnOpen: true });
    } catch (e) {
      await checked.close();
      throw e;
    }
    const unsubscribe = engine.subscribe(progressPrinter(io));
    let signalled: NodeJS.Signals | null = null;
    const onSignal = (sig: NodeJS.Signals) => {
      if (signalled) return;
      signalled = sig;
      io.stderr.write(`\ncaplab: ${sig}: cancelling the sweep and restoring power limits…\n`);
      void engine.cancelAll();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      let sweep;
      try {
        // Schema, device, workload and cap problems are reported together (nothing is written for a bad plan).
        sweep = await engine.beginSweep(checked, {
          where: file,
          wait: args.values.wait === true,
          onWait: (why) => io.stderr.write(`caplab: waiting: ${why}\n`),
        });
      } catch (e) {
        if (e instanceof PlanError) throw new CliError(e.message.startsWith(file) ? e.message : `${file}: ${e.message}`);
        if (e instanceof LeaseHeldError) throw new CliError(`${e.message}; nothing was changed (wait for it with --wait)`);
        throw e;
      }
      for (const notice of sweep.notices) io.stderr.write(`caplab: ${notice}\n`);
      let restored: EventPayload<'sweep.finished'>['restored'] = [];
      engine.subscribe((name, payload) => {
        if (name === 'sweep.finished') restored = payload.restored;
      });
      const status = await sweep.done;
      const { sweep: record, runs } = await engine.getSweep({ sweep_id: sweep.sweepId });
      const error = sweep.error ?? record.error;
      for (const line of describeRestores(restored)) io.stderr.write(`caplab: ${line}\n`);
      if (args.values.json) {
        printJson(io, { sweep_id: record.id, name: record.name, status, simulated: record.simulated, backend: record.backend, error, restored, notices: sweep.notices, runs: runs.map(runJson) });
      } else {
        io.stdout.write(
          `sweep ${record.id} "${printable(record.name)}": ${status}${record.simulated ? ' [simulated]' : ''}${error ? ` — ${error}` : ''}\n` +
            table(
              ['workload', 'cap W', 'rep', 'status', 'throughput/GPU', 'power W/GPU', 'GPU energy J', 'units/J*'],
              runs.map((r) => [r.workload, r.cap_w, r.repetition, r.status, fixed(r.throughput, 2), fixed(r.mean_power_w, 1), fixed(r.energy_j, 0), fixed(r.efficiency, 4)]),
            ) +
            '\n' +
            `* units/J: work per joule of GPU energy plus the plan's node overhead (${record.plan.overhead_w} W over the window), or plus the measured CPU energy where CPU power (RAPL) was recorded; "GPU energy J" is the GPUs alone.\n` +
            (runs.some((r) => r.status === 'done') ? `Next: caplab analyze ${record.id}   (the best cap, with confidence intervals; --json for scripts)\n` : ''),
        );
      }
      if (signalled) return signalled === 'SIGINT' ? 130 : 143;
      return status === 'done' && runs.every((r) => r.status === 'done') ? 0 : 1;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      unsubscribe();
      await engine.close();
    }
  },
});
