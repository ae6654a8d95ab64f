import { CliError, numberOpt, printJson, stringOpt, type CliCommand } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { fixed, table } from '../format';
import { compareSweeps, type ComparedSweep } from '../../../core/analysis/compare';

const pct = (v: number | null) => (v === null ? null : `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} %`);

export const compareCommand: CliCommand = {
  name: 'compare',
  summary: 'Compare two or more sweeps of one workload cap by cap (e.g. H100 vs H200, two software versions)',
  usage: 'compare SWEEP_ID SWEEP_ID... [--workload ID] [--overhead W] [--db FILE] [--json]',
  options: { ...dbOption, ...jsonOption, workload: { type: 'string' }, overhead: { type: 'string' } },
  async run(args, io) {
    const ids = args.positionals.map((p) => {
      const n = Number(p);
      if (!Number.isInteger(n) || n <= 0) throw new CliError(`sweep ids are positive whole numbers; got "${p}"`);
      return n;
    });
    if (ids.length < 2) throw new CliError('give at least two sweep ids: caplab compare 3 7');
    const overhead = numberOpt(args, 'overhead');
    if (overhead !== undefined && overhead < 0) throw new CliError('--overhead must be >= 0 W');
    const workload = stringOpt(args, 'workload');
    const engine = await openEngine(args, io, { readOnly: true });
    try {
      const compared: ComparedSweep[] = [];
      for (const id of ids) {
        const result = await engine.analyzeSweep({ sweep_id: id, overhead_w: overhead });
        const groups = workload ? result.groups.filter((g) => g.workload === workload) : result.groups;
        if (groups.length !== 1) {
          const names = result.groups.map((g) => g.workload).join(', ') || 'none';
          throw new CliError(`sweep ${id} has ${groups.length === 0 ? 'no' : 'several'} matching workloads (${names}); choose one with --workload`);
        }
        compared.push({ label: `#${id} ${groups[0]!.device_model}`, group: groups[0]! });
      }
      const comparison = compareSweeps(compared);
      if (args.values.json) {
        printJson(io, comparison);
        return 0;
      }
      io.stdout.write(`${comparison.workload}: relative to ${comparison.baseline}\n`);
      io.stdout.write(
        table(
          ['sweep', 'device', 'best cap (max-efficiency) W', 'peak units/J'],
          comparison.sweeps.map((s) => [s.label, s.device_model, s.best['max-efficiency'] ?? null, fixed(s.peak_efficiency, 4)]),
        ) + '\n\n',
      );
      io.stdout.write(
        table(
          ['cap W', ...comparison.sweeps.flatMap((s) => [`${s.label} units/J`, 'vs base'])],
          comparison.rows.map((r) => [r.cap_w, ...r.entries.flatMap((e) => [fixed(e.efficiency, 4), pct(e.rel_efficiency)])]),
        ) + '\n',
      );
      for (const n of comparison.notes) io.stderr.write(`caplab compare: ${n}\n`);
      return 0;
    } finally {
      await engine.close();
    }
  },
};
