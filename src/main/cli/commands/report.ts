import { join } from 'node:path';
import { CliError, defineCommand, printJson, stringOpt, type CliArgs } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { analysisOptions, analysisOptionsOf } from '../analysis-options';
import { parseTimeArg } from './energy';
import type { Engine, ReportJob, ReportSubject } from '../../lab';
import type { Paper } from '../../../core/report/model';
import { ANALYSIS } from '../flag-docs';

const positiveId = (text: string, what: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${what} must be a positive whole number, got "${text}" (see \`caplab runs\`)`);
  return n;
};

export function paperOf(args: CliArgs): Paper {
  const p = (stringOpt(args, 'paper') ?? 'a4').toLowerCase();
  if (p !== 'a4' && p !== 'letter') throw new CliError(`--paper must be a4 or letter, got "${p}"`);
  return p;
}

/** What to report on, and where each report goes. */
async function jobsOf(args: CliArgs, engine: () => Promise<Engine>): Promise<ReportJob[]> {
  const dataset = stringOpt(args, 'dataset');
  const compare = stringOpt(args, 'compare');
  const since = stringOpt(args, 'all-since');
  const chosen = [args.positionals.length > 0, dataset !== undefined, compare !== undefined, since !== undefined].filter(Boolean).length;
  if (chosen !== 1 || args.positionals.length > 1) throw new CliError('give one of: SWEEP_ID, --dataset ID, --compare ID,ID or --all-since DATE');
  const pdf = stringOpt(args, 'pdf');
  const html = stringOpt(args, 'html');
  // Flags of --all-since alone are refused elsewhere rather than silently ignored.
  if (since === undefined) for (const f of ['out-dir', 'html-only'] as const) if (args.values[f] !== undefined) throw new CliError(`--${f} goes with --all-since; for one report name the files with --pdf FILE and/or --html FILE`);
  if (since !== undefined) {
    if (pdf || html) throw new CliError('--all-since writes one report per sweep into --out-dir; --pdf/--html name single files');
    const from = parseTimeArg('all-since', since);
    const dir = stringOpt(args, 'out-dir') ?? '.';
    const sweeps = (await (await engine()).listSweeps({})).filter((s) => s.created_at >= from).reverse();
    const format = args.values['html-only'] ? 'html' : 'pdf';
    return sweeps.map((s) => ({ subject: { kind: 'sweep', sweep_id: s.id }, [format]: join(dir, `caplab-report-sweep-${s.id}.${format}`) }));
  }
  let subject: ReportSubject;
  if (dataset !== undefined) subject = { kind: 'dataset', dataset_id: positiveId(dataset, '--dataset') };
  else if (compare !== undefined) {
    const ids = compare.split(',').map((x) => positiveId(x.trim(), '--compare ids'));
    if (ids.length < 2) throw new CliError('--compare needs two or more sweep ids: --compare 3,7');
    subject = { kind: 'compare', sweep_ids: ids };
  } else subject = { kind: 'sweep', sweep_id: positiveId(args.positionals[0]!, 'SWEEP_ID') };
  const stem = subject.kind === 'sweep' ? `caplab-report-sweep-${subject.sweep_id}` : subject.kind === 'dataset' ? `caplab-report-dataset-${subject.dataset_id}` : `caplab-report-compare-${subject.sweep_ids.join('-')}`;
  return [{ subject, pdf: pdf ?? (html ? undefined : `${stem}.pdf`), html }];
}

export const reportCommand = defineCommand({
  name: 'report',
  summary: 'Write the lab report of a sweep, a dataset or a comparison as PDF (headless Chromium) and/or HTML',
  usage:
    'report SWEEP_ID|--dataset ID|--compare ID,ID|--all-since DATE [--pdf FILE] [--html FILE] [--out-dir DIR] [--html-only] [--author NAME] [--paper a4|letter] [--title T] [--browser PATH] [--overhead W] [--selector S] [--slowdown F] [--weight W] [--include-unenforced] [--include-flagged] [--margin F] [--price-per-mwh N] [--grid-g-per-kwh N] [--currency C] [--tariff FILE] [--price-csv FILE] [--carbon-csv FILE] [--db FILE] [--json]',
  options: {
    ...dbOption,
    ...jsonOption,
    ...analysisOptions,
    dataset: { type: 'string' },
    compare: { type: 'string' },
    'all-since': { type: 'string' },
    'out-dir': { type: 'string' },
    'html-only': { type: 'boolean' },
    pdf: { type: 'string' },
    html: { type: 'string' },
    author: { type: 'string' },
    paper: { type: 'string' },
    browser: { type: 'string' },
    title: { type: 'string' },
  },
  flags: {
    ...ANALYSIS,
    dataset: { value: 'ID', text: 'Report on an imported dataset instead of a sweep (no SWEEP_ID then).', example: '--dataset 2' },
    compare: { value: 'ID,ID', text: 'Report comparing two or more sweeps (no SWEEP_ID then).', example: '--compare 3,7' },
    'all-since': { value: 'DATE', text: 'One report per sweep created since then (ISO-8601 time or epoch seconds), each caplab-report-sweep-ID.pdf in --out-dir.', example: '--all-since 2026-05-01' },
    'out-dir': { value: 'DIR', text: 'With --all-since: the folder the reports are written to.', default: 'the current folder', example: '--out-dir reports' },
    'html-only': { text: 'With --all-since: write HTML reports instead of PDF (no browser needed).', default: 'off (PDF)' },
    pdf: { value: 'FILE', text: 'Write the PDF here (printed by headless Chromium).', default: 'caplab-report-sweep-ID.pdf (dataset-ID, compare-ID-ID) unless --html is given', example: '--pdf sweep-3.pdf' },
    html: { value: 'FILE', text: 'Write the HTML report here (inline SVG charts; no browser needed); with --pdf, both are written.', default: 'none', example: '--html sweep-3.html' },
    author: { value: 'NAME', text: 'Author named on the report.', default: 'none', example: "--author 'A. Researcher'" },
    paper: { value: 'SIZE', text: 'Paper size of the PDF: a4 or letter.', default: 'a4', example: '--paper letter' },
    browser: { value: 'PATH', text: 'The Chromium or Chrome to print the PDF with.', default: '$CAPLAB_BROWSER, else a system Chromium/Chrome, else Playwright\'s', example: '--browser /usr/bin/chromium' },
    title: { value: 'T', text: 'Title of the report.', default: 'the sweep\'s name and label (a comparison: its sweeps)', example: "--title 'H100 power caps, May'" },
  },
  examples: ['caplab report 3', "caplab report 3 --html sweep-3.html --author 'A. Researcher' --paper letter", 'caplab report --compare 3,7 --selector min-energy-slowdown --slowdown 0.05', 'caplab report --all-since 2026-05-01 --out-dir reports --html-only --json', 'caplab report 3 --price-per-mwh 85 --grid-g-per-kwh 380'],
  async run(args, io) {
    const analysis = analysisOptionsOf(args);
    const paper = paperOf(args);
    // Opened once the flags are known good: a mistyped flag is named before the database is looked for.
    let engine: Engine | undefined;
    const open = async () => (engine ??= await openEngine(args, io, { readOnly: true }));
    try {
      const jobs = await jobsOf(args, open);
      const meta = { author: stringOpt(args, 'author') ?? null, paper, title: stringOpt(args, 'title') };
      const r = await (await open()).files.reports({ jobs, analysis, meta, browser: stringOpt(args, 'browser') }, (m) => io.stderr.write(`caplab report: ${m}\n`));
      if (args.values.json) printJson(io, r);
      return r.failed.length ? 1 : 0;
    } finally {
      await engine?.close();
    }
  },
});
