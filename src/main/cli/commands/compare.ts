import { CliError, defineCommand, numberOpt, printJson, stringOpt } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { fixed, table } from '../format';
import { compareSweeps, type ComparedSweep } from '../../../core/analysis/compare';
import type { AnalysisGroup } from '../../../shared/analysis';

const pct = (v: number | null) => (v === null ? null : `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} %`);

/** A positive whole-number id, or a CLI error naming what it is. */
function idOf(p: string, what: string): number {
  const n = Number(p);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${what} are positive whole numbers; got "${p}"`);
  return n;
}

/** The one workload group of an analysis to compare, or an error naming the source and its workloads. */
function onlyGroup(groups: AnalysisGroup[], what: string, workload: string | undefined): AnalysisGroup {
  const matching = workload ? groups.filter((g) => g.workload === workload) : groups;
  if (matching.length !== 1) {
    const names = groups.map((g) => g.workload).join(', ') || 'none';
    throw new CliError(`${what} has ${matching.length === 0 ? 'no' : 'several'} matching workloads (${names}); choose one with --workload`);
  }
  return matching[0]!;
}

export const compareCommand = defineCommand({
  name: 'compare',
  summary: 'Compare two or more sweeps (or imported datasets) of one workload cap by cap (e.g. H100 vs H200, two software versions)',
  usage: 'compare SWEEP_ID... [--dataset ID]... [--workload ID] [--overhead W] [--db FILE] [--json]',
  options: { ...dbOption, ...jsonOption, workload: { type: 'string' }, overhead: { type: 'string' }, dataset: { type: 'string', multiple: true } },
  flags: {
    workload: { value: 'ID', text: 'The workload to compare when the sweeps ran several.', default: 'the one workload they share', example: '--workload vit_l_16' },
    overhead: { value: 'W', text: 'Node overhead for the efficiency of every sweep.', default: 'each sweep\'s own overhead_w', example: '--overhead 100' },
    dataset: { value: 'ID', text: 'Also compare this imported dataset (its segments with a cap and work units, as analyze --dataset); repeatable; after the sweeps.', default: 'none', example: '--dataset 2' },
  },
  examples: ['caplab compare 1 2', 'caplab compare 1 2 3 --workload vit_l_16 --overhead 100 --json', 'caplab compare 3 --dataset 2'],
  async run(args, io) {
    const ids = args.positionals.map((p) => idOf(p, 'sweep ids'));
    const datasetIds = ((args.values.dataset as string[] | undefined) ?? []).map((p) => idOf(p, '--dataset ids'));
    if (ids.length + datasetIds.length < 2) throw new CliError('give at least two sweep ids (or sweeps and --dataset ids): caplab compare 3 7, caplab compare 3 --dataset 2');
    const overhead = numberOpt(args, 'overhead');
    if (overhead !== undefined && overhead < 0) throw new CliError('--overhead must be >= 0 W');
    const workload = stringOpt(args, 'workload');
    const engine = await openEngine(args, io, { readOnly: true });
    try {
      const compared: ComparedSweep[] = [];
      for (const id of ids) {
        const result = await engine.analyzeSweep({ sweep_id: id, overhead_w: overhead });
        const g = onlyGroup(result.groups, `sweep ${id}`, workload);
        compared.push({ label: `#${id} ${g.device_model}`, group: g });
      }
      // A dataset's segments with a cap and work units are analysed as a sweep (`caplab analyze --dataset`).
      for (const id of datasetIds) {
        const result = (await engine.analyzeDataset({ dataset_id: id, overhead_w: overhead })).sweep;
        if (!result) throw new CliError(`dataset ${id} has no segment with a cap and work units to compare (give its segments a cap and the work done: dataset page, or the import of per-cap logs)`);
        const g = onlyGroup(result.groups, `dataset ${id}`, workload);
        compared.push({ label: `dataset ${id} ${g.device_model}`, group: g });
      }
      const comparison = compareSweeps(compared);
      if (args.values.json) {
        printJson(io, comparison);
        return 0;
      }
      io.stdout.write(`${comparison.workload}: relative to ${comparison.baseline}\n`);
      io.stdout.write(
        table(
          ['source', 'device', 'best cap (max-efficiency) W', 'peak units/J'],
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
});
