import { join } from 'node:path';
import { CliError, printJson, stringOpt, type CliArgs, type CliCommand, type CliIO } from '../command';
import { dbOption, jsonOption } from '../open-engine';
import { analysisOptions, analysisOptionsOf } from '../analysis-options';
import { openReadOnly } from '../read-db';
import { parseTimeArg } from './energy';
import { LoadError } from '../../lab/analysis/load';
import { listSweeps } from '../../lab/store/sweeps';
import { buildReport, type ReportSubject } from '../../lab/report/build';
import { PrintError, writeReport, type PdfPrinter } from '../../lab/report/write';
import { ExportError } from '../../lab/files/atomic';
import { findBrowser, NoBrowserError, printPdfWithChromium } from '../../lab/exporters/chromium';
import type { Paper } from '../../../core/report/model';
import type { WrittenFile } from '../../../shared/export';

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

interface Job {
  subject: ReportSubject;
  pdf?: string;
  html?: string;
}

/** What to report on, and where each report goes. */
function jobsOf(args: CliArgs, io: CliIO): Job[] {
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
    const db = openReadOnly(args, io);
    try {
      const sweeps = listSweeps(db).filter((s) => s.created_at >= from).reverse();
      const format = args.values['html-only'] ? 'html' : 'pdf';
      return sweeps.map((s) => ({ subject: { kind: 'sweep', sweep_id: s.id }, [format]: join(dir, `caplab-report-sweep-${s.id}.${format}`) }));
    } finally {
      db.close();
    }
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

export const reportCommand: CliCommand = {
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
  async run(args, io) {
    const opts = analysisOptionsOf(args);
    const paper = paperOf(args);
    const jobs = jobsOf(args, io);
    const say = (m: string) => io.stderr.write(`caplab report: ${m}\n`);
    const needPdf = jobs.some((j) => j.pdf);
    let printer: PdfPrinter | null = null;
    let browserError: string | null = null;
    if (needPdf) {
      try {
        const browser = await findBrowser(stringOpt(args, 'browser'), io.env);
        say(`printing with ${browser}`);
        printer = (html, o) => printPdfWithChromium(browser, html, o);
      } catch (e) {
        if (!(e instanceof NoBrowserError)) throw e instanceof ExportError ? new CliError(e.message) : e;
        browserError = e.message;
      }
    }
    const written: WrittenFile[] = [];
    const failed: { source: string; path: string; error: string }[] = [];
    if (jobs.length === 0) say('no sweeps since that date: nothing written');
    const db = openReadOnly(args, io);
    try {
      for (const job of jobs) {
        const s = job.subject;
        const source = s.kind === 'sweep' ? `sweep ${s.sweep_id}` : s.kind === 'dataset' ? `dataset ${s.dataset_id}` : `compare ${s.sweep_ids.join(',')}`;
        say(`${source}: analysing…`);
        let input;
        try {
          input = buildReport(db, job.subject, opts, { author: stringOpt(args, 'author') ?? null, paper, title: stringOpt(args, 'title') });
        } catch (e) {
          if (e instanceof LoadError) throw new CliError(e.message);
          throw e;
        }
        // No browser: write the HTML instead of the PDF and say how to print it.
        const html = job.html ?? (job.pdf && !printer ? job.pdf.replace(/\.pdf$/i, '') + '.html' : undefined);
        say(`${source}: rendering${job.pdf && printer ? ' and printing' : ''}…`);
        try {
          const r = await writeReport(input, { pdf: printer ? job.pdf : undefined, html }, printer);
          written.push(...r.written);
          for (const f of r.written) say(`wrote ${f.path} (${f.bytes} bytes)`);
          if (job.pdf && !printer) {
            failed.push({ source, path: job.pdf, error: browserError! });
            say(`no PDF: ${browserError}. Open ${html} in a browser and print it to PDF (Ctrl+P, paper ${paper === 'a4' ? 'A4' : 'Letter'}, background graphics on), or install chromium and run this again.`);
          }
        } catch (e) {
          if (e instanceof ExportError) throw new CliError(e.message);
          if (!(e instanceof PrintError)) throw e;
          written.push(...e.written);
          failed.push({ source, path: job.pdf ?? '', error: e.message });
          say(`${source}: ${e.message.split('\n')[0]}`);
        }
      }
    } finally {
      db.close();
    }
    if (args.values.json) printJson(io, { written, failed });
    return failed.length ? 1 : 0;
  },
};
