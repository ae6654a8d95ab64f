import { CliError, printJson, stringOpt, type CliArgs, type CliCommand } from '../command';
import { analysisOptionsOf, analysisOptions } from '../analysis-options';
import { dbOption, jsonOption } from '../open-engine';
import { fixed, table } from '../format';
import { describeMigration, openDb, StoreError, type Db } from '../../lab/store/db';
import { dbPath } from '../../lab/paths';
import { LoadError } from '../../lab/analysis/load';
import { analyzeStoredSweep } from '../../lab/analysis/analyze-stored';
import { SELECTORS, type AnalysisGroup, type AnalysisResult, type Stat } from '../../../shared/analysis';

/** Opens the lab database read-only: analysis never writes, and never touches a GPU. */
export function openReadOnly(args: CliArgs, env: NodeJS.ProcessEnv, stderr?: NodeJS.WritableStream): Db {
  const file = dbPath(stringOpt(args, 'db'), env);
  try {
    const db = openDb(file, { readonly: true });
    const note = describeMigration(file, db);
    if (note) stderr?.write(`caplab: ${note}\n`);
    return db;
  } catch (e) {
    if (e instanceof StoreError) throw new CliError(e.message);
    throw e;
  }
}

const withCi = (s: Stat, digits: number) =>
  s.mean === null ? null : s.ci ? `${s.mean.toFixed(digits)} ± ${s.ci.half_width.toFixed(digits)}` : `${s.mean.toFixed(digits)} (n=1)`;

function describeGroup(g: AnalysisGroup, r: AnalysisResult): string {
  const lines: string[] = [];
  lines.push(`${g.workload} on ${g.device_model} — ${g.units ?? 'units'}; node overhead ${r.options.overhead_w} W; 95 % CI (Student t)`);
  lines.push(
    table(
      ['cap W', 'n', `throughput/GPU`, 'power W/GPU', `${g.units ?? 'units'}/J`, 'SM MHz', 'pwr-cap thr.', 'enforced', 'flags'],
      g.caps.map((c) => [
        c.cap_w,
        c.n_usable,
        withCi(c.throughput, 2),
        fixed(c.power_w.mean, 1),
        withCi(c.efficiency, 4),
        fixed(c.clocks.sm_mhz, 0),
        c.clocks.power_cap_throttled_share === null ? null : `${(c.clocks.power_cap_throttled_share * 100).toFixed(0)} %`,
        c.enforcement.enforced === null ? '?' : c.enforcement.enforced ? 'yes' : 'NO',
        c.flags.join(',') || null,
      ]),
    ),
  );
  lines.push('');
  lines.push(
    table(
      ['selector', 'best cap W', 'value', 'indistinguishable (95 %)', 'note'],
      SELECTORS.map((s) => {
        const o = g.optima[s];
        const mark = s === r.options.selector ? ' *' : '';
        const range = o.indistinguishable_caps === null ? 'untestable (n=1)' : o.indistinguishable_caps.join(', ');
        return [s + mark, o.cap_w, o.value === null ? null : o.value.toPrecision(5), range, o.at_edge ? `at ${o.at_edge} edge of grid` : null];
      }),
    ),
  );
  lines.push('');
  lines.push(`best cap vs node overhead (${g.sensitivity.from_w}-${g.sensitivity.to_w} W):`);
  lines.push(table(['overhead W', ...SELECTORS], g.sensitivity.table.map((row) => [row.overhead_w, ...SELECTORS.map((s) => row.best[s] ?? null)])));
  const changes = g.sensitivity.changes.map((c) => `${c.selector}: ${c.from_cap_w} -> ${c.to_cap_w} W between ${c.overhead_lo} and ${c.overhead_hi} W`);
  if (changes.length) lines.push(`  moves: ${changes.join('; ')}`);
  lines.push(`Pareto front (throughput vs efficiency): ${g.pareto.front.map((p) => `${p.cap_w} W`).join(', ') || '–'}`);
  if (g.refine) lines.push(`adaptive: ${g.refine.done ? `done (${g.refine.reason})` : `next caps ${g.refine.next_caps.join(', ')} W`} — ${g.refine.note ?? ''}`);
  for (const n of g.notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}

export const analyzeCommand: CliCommand = {
  name: 'analyze',
  summary: 'Analyse a recorded sweep: per-cap statistics, enforcement, best cap per selector, sensitivity to overhead',
  usage: `analyze SWEEP_ID [--overhead W] [--selector ${SELECTORS.join('|')}] [--slowdown FRACTION] [--weight W] [--include-unenforced] [--db FILE] [--json]`,
  options: { ...dbOption, ...jsonOption, ...analysisOptions },
  async run(args, io) {
    const idText = args.positionals[0];
    if (!idText || args.positionals.length > 1) throw new CliError('expected one SWEEP_ID (see `caplab runs`)');
    const sweepId = Number(idText);
    if (!Number.isInteger(sweepId)) throw new CliError(`SWEEP_ID must be an integer, got "${idText}"`);
    const opts = analysisOptionsOf(args);
    const db = openReadOnly(args, io.env, io.stderr);
    try {
      let analysed;
      try {
        analysed = analyzeStoredSweep(db, sweepId, opts);
      } catch (e) {
        if (e instanceof LoadError) throw new CliError(e.message);
        throw e;
      }
      const { loaded, result } = analysed;
      if (args.values.json) {
        printJson(io, result);
        return 0;
      }
      const s = loaded.sweep;
      io.stdout.write(`sweep ${s.id} "${s.name}" — ${s.status}${s.simulated ? ' [simulated]' : ''}, ${result.runs.length} runs\n\n`);
      if (result.groups.length === 0) io.stdout.write('nothing to analyse\n');
      for (const g of result.groups) io.stdout.write(describeGroup(g, result) + '\n\n');
      for (const w of result.warnings) io.stderr.write(`caplab analyze: ${w}\n`);
      return 0;
    } finally {
      db.close();
    }
  },
};
