import { CliError, defineCommand, printJson, stringOpt, type CliIO } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { analysisOptions, analysisOptionsOf } from '../analysis-options';
import { fixed, table, withBound } from '../format';
import { SELECTORS, type AnalysisGroup, type AnalysisResult, type Stat } from '../../../shared/analysis';
import type { DatasetAnalysis } from '../../../shared/dataset-analysis';
import { flagEffect, flagList } from '../../../shared/flags';
import { costBasisText, costCells, costHeaders, costTotalText, tariffText } from '../../../shared/cost-format';
import { ANALYSIS } from '../flag-docs';

const withCi = (s: Stat, digits: number) =>
  s.mean === null ? null : s.ci ? `${s.mean.toFixed(digits)} ± ${s.ci.half_width.toFixed(digits)}` : `${s.mean.toFixed(digits)} (n=1)`;

/** The workload's unit, singular or plural ("image", "images"), for the value column's unit. */
function unitName(g: AnalysisGroup, n: number): string {
  const u = g.units ?? 'units';
  return n === 1 ? u.replace(/s$/, '') : u;
}

export function describeGroup(g: AnalysisGroup, r: AnalysisResult): string {
  const lines: string[] = [];
  lines.push(`${g.workload} on ${g.device_model} — ${g.units ?? 'units'}; ${g.units ?? 'units'}/J counts ${g.energy_basis || `GPU energy + ${r.options.overhead_w} W node overhead`}; 95 % CI (Student t)`);
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
      ['selector', 'best cap W', 'value', 'unit of value', 'basis', `within ${(r.options.margin * 100).toFixed(1)} %`, 'too few reps to tell', 'note'],
      SELECTORS.map((s) => {
        const o = g.optima[s];
        const mark = s === r.options.selector ? ' *' : '';
        const eq = o.equivalence;
        return [
          s + mark,
          o.cap_w ?? '–',
          o.value === null ? null : o.value.toPrecision(5),
          o.metric.replace(/\bunits?\b/g, (u) => (u === 'unit' ? unitName(g, 1) : unitName(g, 2))),
          o.basis || null,
          eq ? eq.equivalent_caps.join(', ') || '–' : 'n=1',
          eq ? eq.undetermined_caps.join(', ') || '–' : 'n=1',
          o.at_edge ? `at ${o.at_edge} edge of grid` : null,
        ];
      }),
    ),
  );
  lines.push(`* the selector asked for (--selector, default ${SELECTORS[0]}); the other rows are shown for comparison.`);
  // Selectors without an answer for the same reason are said once.
  const none = new Map<string, string[]>();
  for (const s of SELECTORS) {
    const o = g.optima[s];
    if (o.cap_w !== null) continue;
    const why = `no answer (${o.basis}): ${o.no_answer_reason ?? o.note ?? 'no eligible caps'}${o.fix ? `\n    fix: ${o.fix}` : ''}`;
    none.set(why, [...(none.get(why) ?? []), s]);
  }
  for (const [why, sels] of none) lines.push(`  ${sels.length === SELECTORS.length ? 'every selector' : sels.join(', ')}: ${why}`);
  if (g.reference) lines.push(g.reference.valid ? `  slowdowns are against ${g.reference.cap_w} W (${g.reference.basis})` : `  slowdowns: ${g.reference.reason}`);
  const primary = g.optima[r.options.selector].equivalence;
  if (primary) lines.push(`  ${primary.statement}`);
  lines.push('');
  lines.push(`best cap vs node overhead (${g.sensitivity.from_w}-${g.sensitivity.to_w} W):`);
  lines.push(table(['overhead W', ...SELECTORS], g.sensitivity.table.map((row) => [row.overhead_w, ...SELECTORS.map((s) => row.best[s] ?? null)])));
  const changes = g.sensitivity.changes.map((c) => `${c.selector}: ${c.from_cap_w} -> ${c.to_cap_w} W between ${c.overhead_lo} and ${c.overhead_hi} W`);
  if (changes.length) lines.push(`  moves: ${changes.join('; ')}`);
  lines.push(`Pareto front (throughput vs efficiency): ${g.pareto.front.map((p) => `${p.cap_w} W`).join(', ') || '–'}`);
  if (g.refine) lines.push(`adaptive: ${g.refine.done ? `done (${g.refine.reason})` : `next caps ${g.refine.next_caps.join(', ')} W`} — ${g.refine.note ?? ''}`);
  for (const n of g.notes) lines.push(`note: ${n}`);
  const raised = new Set([...g.caps.flatMap((c) => c.flags), ...r.runs.filter((x) => x.workload === g.workload && x.device_model === g.device_model).flatMap((x) => x.flags)]);
  for (const f of flagList) if (raised.has(f.id)) lines.push(`flag ${f.id} (${f.severity}): ${f.meaning}; ${flagEffect(f)}`);
  return lines.join('\n');
}

/** The "cost and carbon" section of a sweep analysed with a tariff: per group a table per cap, then the sweep total. */
export function describeCost(r: AnalysisResult): string {
  const cost = r.cost;
  if (!cost) return '';
  const lines = [`cost and carbon — ${tariffText(cost)}`];
  for (const g of cost.groups) {
    if (cost.groups.length > 1) lines.push(`${g.workload} on ${g.device_model}:`);
    lines.push(table(costHeaders(cost, g.units), g.caps.map(costCells)));
  }
  lines.push(costTotalText(cost), costBasisText(cost), ...cost.notes.map((n) => `note: ${n}`));
  return lines.join('\n');
}

export const analyzeCommand = defineCommand({
  name: 'analyze',
  summary: 'Analyse a recorded sweep: per-cap statistics, enforcement, best cap per selector, sensitivity to overhead',
  usage: `analyze SWEEP_ID | --dataset ID [--overhead W] [--selector ${SELECTORS.join('|')}] [--slowdown FRACTION] [--weight W] [--include-unenforced] [--include-flagged] [--margin FRACTION] [--price-per-mwh N] [--grid-g-per-kwh N] [--currency C] [--tariff FILE] [--price-csv FILE] [--carbon-csv FILE] [--db FILE] [--json]`,
  options: {
    ...dbOption,
    ...jsonOption,
    ...analysisOptions,
    dataset: { type: 'string' },
  },
  flags: {
    ...ANALYSIS,
    dataset: { value: 'ID', text: 'Analyse an imported dataset\'s segments instead of a sweep (no SWEEP_ID then).', example: '--dataset 2' },
  },
  examples: ['caplab analyze 1', 'caplab analyze 1 --overhead 200 --selector min-energy-slowdown --slowdown 0.05', 'caplab analyze 1 --json', 'caplab analyze --dataset 2', 'caplab analyze 1 --price-per-mwh 85 --grid-g-per-kwh 380 --currency EUR', 'caplab analyze 1 --tariff site-tariff.yaml --json'],
  async run(args, io) {
    const datasetText = stringOpt(args, 'dataset');
    const idText = args.positionals[0];
    if (datasetText === undefined && (!idText || args.positionals.length > 1)) throw new CliError('expected one SWEEP_ID (see `caplab runs`) or --dataset ID');
    if (datasetText !== undefined && idText !== undefined) throw new CliError('give a SWEEP_ID or --dataset ID, not both');
    const sweepId = Number(idText ?? datasetText);
    if (!Number.isInteger(sweepId)) throw new CliError(`${datasetText !== undefined ? '--dataset' : 'SWEEP_ID'} must be an integer, got "${idText ?? datasetText}"`);
    const options = analysisOptionsOf(args);

    const engine = await openEngine(args, io, { readOnly: true });
    if (datasetText !== undefined) {
      try {
        const a = await engine.analyzeDataset({ dataset_id: sweepId, ...options, overhead_w: options.overhead_w ?? undefined });
        return printDatasetAnalysis(a, args.values.json === true, io);
      } finally {
        await engine.close();
      }
    }
    try {
      const result = await engine.analyzeSweep({ sweep_id: sweepId, ...options, overhead_w: options.overhead_w ?? undefined });
      if (args.values.json) {
        printJson(io, result);
        return 0;
      }
      const s = (await engine.getSweep({ sweep_id: sweepId })).sweep;
      io.stdout.write(`sweep ${s.id} "${s.name}" — ${s.status}${s.simulated ? ' [simulated]' : ''}, ${result.runs.length} runs\n\n`);
      if (result.groups.length === 0) io.stdout.write('nothing to analyse\n');
      for (const g of result.groups) io.stdout.write(describeGroup(g, result) + '\n\n');
      if (result.cost) io.stdout.write(describeCost(result) + '\n\n');
      for (const w of result.warnings) io.stderr.write(`caplab analyze: ${w}\n`);
      return 0;
    } finally {
      await engine.close();
    }
  },
});

function printDatasetAnalysis(a: DatasetAnalysis, json: boolean, io: CliIO): number {
  if (json) {
    printJson(io, a);
    return 0;
  }
  io.stdout.write(`dataset ${a.dataset_id} "${a.name}" — ${a.segments.length} segment(s)\n\n`);
  io.stdout.write(
    table(
      ['segment', 'origin', 'cap W', 's', 'energy J', 'mean W', 'sensor', 'method', 'throughput', 'units/J', 'units/J counts', 'units/J of power alone'],
      a.segments.map((s) => [
        s.segment.label ?? `#${s.segment.id}`,
        s.segment.origin,
        s.segment.cap_w,
        fixed(s.segment.end - s.segment.start, 1),
        withBound(s.energy.energy_j, s.energy.uncertainty_j, 0),
        fixed(s.energy.mean_w, 1),
        s.energy.sensor,
        [...new Set(s.energy.devices.map((d) => d.method ?? null))].filter(Boolean).join(', ') || null,
        fixed(s.throughput, 2),
        fixed(s.efficiency, 4),
        s.efficiency_basis || null,
        fixed(s.efficiency_gpu_only, 4),
      ]),
    ) + '\n\n',
  );
  if (a.segments.some((s) => s.energy.uncertainty_j != null)) io.stdout.write('energy ± is a systematic sensor bound (stated NVML accuracy plus the method’s), not a statistical CI\n\n');
  if (a.sweep) for (const g of a.sweep.groups) io.stdout.write(describeGroup(g, a.sweep) + '\n\n');
  if (a.sweep?.cost) io.stdout.write(describeCost(a.sweep) + '\n\n');
  for (const w of [...a.warnings, ...(a.sweep?.warnings ?? [])]) io.stderr.write(`caplab analyze: ${w}\n`);
  return 0;
}
