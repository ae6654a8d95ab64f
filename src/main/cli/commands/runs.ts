import { CliError, defineCommand, numberOpt, printJson, stringOpt } from '../command';
import type { MethodOutput } from '../../../shared/api';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { fixed, printable, table } from '../format';
import { paging } from '../flag-docs';

function runsTable(runs: MethodOutput<'listRuns'>['runs']): string {
  return table(
    ['run', 'node', 'workload', 'cap W', 'rep', 'status', 'throughput/GPU', 'power W', 'energy J', 'units/J'],
    runs.map((r) => [r.id, r.node ?? '-', r.workload, r.cap_w, r.repetition, r.status, fixed(r.throughput, 2), fixed(r.mean_power_w, 1), fixed(r.energy_j, 0), fixed(r.efficiency, 4)]),
  );
}

export const runsCommand = defineCommand({
  name: 'runs',
  summary: 'List recorded sweeps and their runs',
  usage: 'runs [--sweep ID [--limit N] [--cursor C]] [--db FILE] [--json]',
  options: { ...dbOption, ...jsonOption, sweep: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
  flags: {
    sweep: { value: 'ID', text: 'Only this sweep (with all its runs).', default: 'every sweep', example: '--sweep 3' },
    ...paging('With --sweep: one page of at most N runs (1 to 1000); JSON: {sweep_id, runs, next}.', 'every run at once', 100),
  },
  examples: ['caplab runs', 'caplab runs --sweep 3 --json', 'caplab runs --sweep 3 --limit 100 --json'],
  async run(args, io) {
    const engine = await openEngine(args, io);
    try {
      const only = numberOpt(args, 'sweep');
      const limit = numberOpt(args, 'limit');
      const cursor = stringOpt(args, 'cursor');
      if (limit !== undefined || cursor !== undefined) {
        if (only === undefined) throw new CliError('--limit and --cursor page through one sweep\'s runs: give --sweep ID');
        const page = await engine.listRuns({ sweep_id: only, limit, cursor });
        const runs = page.runs.map((r) => ({ ...r, run_id: r.id }));
        if (args.values.json) printJson(io, { sweep_id: only, runs, next: page.next });
        else {
          io.stdout.write(runsTable(runs) + '\n');
          io.stderr.write(page.next ? `next page: --cursor ${page.next}\n` : 'last page\n');
        }
        return 0;
      }
      // A sweep asked for by id must exist: not_found (exit 2, "no sweep 42"), never an empty list.
      if (only !== undefined) await engine.getSweep({ sweep_id: only });
      const sweeps = (await engine.listSweeps({})).filter((s) => only === undefined || s.id === only);
      // Run entries carry `run_id` as `caplab sweep --json` and the README name it, beside the stored `id`; cluster
      // sweeps (`caplab cluster collect`) say which node ran each run (node, hostname); other sweeps ran on s.host.
      // A tuning session's status says what it held, or, killed, when and what the journal restored.
      const detailed = await Promise.all(
        sweeps.map(async (s) => ({
          ...s,
          tune_status: await engine.getTuneStatus({ sweep_id: s.id }),
          runs: (await engine.getSweep({ sweep_id: s.id })).runs.map((r) => ({ ...r, run_id: r.id })),
        })),
      );
      if (args.values.json) {
        printJson(io, detailed);
        return 0;
      }
      if (detailed.length === 0) io.stdout.write('no sweeps recorded yet\n');
      for (const s of detailed) {
        io.stdout.write(`sweep ${s.id} "${printable(s.name)}" — ${s.status}${s.simulated ? ' [simulated]' : ''}, ${s.runs_done}/${s.run_count} runs, backend ${s.backend}, ${new Date(s.created_at * 1000).toISOString()}\n`);
        // A tuning session's end report, as `caplab tune` printed it when the session ended.
        if (s.tune_report) io.stdout.write(`${s.tune_report}\n`);
        else if (s.tune_status?.stage === 'interrupted') io.stdout.write(`tuning session ${s.tune_status.note}\n`);
        io.stdout.write(runsTable(s.runs) + '\n\n');
      }
      return 0;
    } finally {
      await engine.close();
    }
  },
});
