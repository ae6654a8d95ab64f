// Lab reports written to files the caller names (`caplab report`): each subject analysed, rendered to HTML and
// printed to PDF with a headless Chromium. Without a browser the HTML is written in the PDF's place and the job is
// reported as failed with what to do; one report's print failure does not stop the others.
import type { Db } from '../store/db';
import { buildReport, type ReportMeta, type ReportOptions, type ReportSubject } from '../report/build';
import { PrintError, writeReport, type PdfPrinter } from '../report/write';
import { findBrowser, NoBrowserError, printPdfWithChromium } from './chromium';
import type { WrittenFile } from '../../../shared/export';

export interface ReportJob {
  subject: ReportSubject;
  pdf?: string;
  html?: string;
}

export interface ReportFilesRequest {
  jobs: ReportJob[];
  analysis: ReportOptions;
  meta: ReportMeta;
  /** The browser to print with (--browser); default: the first Chromium found on this machine. */
  browser?: string;
}

export interface ReportFilesResult {
  written: WrittenFile[];
  failed: { source: string; path: string; error: string }[];
}

export const subjectWords = (s: ReportSubject) => (s.kind === 'sweep' ? `sweep ${s.sweep_id}` : s.kind === 'dataset' ? `dataset ${s.dataset_id}` : `compare ${s.sweep_ids.join(',')}`);

async function printerFor(req: ReportFilesRequest, env: NodeJS.ProcessEnv, say: (m: string) => void): Promise<{ printer: PdfPrinter | null; browserError: string | null }> {
  if (!req.jobs.some((j) => j.pdf)) return { printer: null, browserError: null };
  try {
    const browser = await findBrowser(req.browser, env);
    say(`printing with ${browser}`);
    return { printer: (html, o) => printPdfWithChromium(browser, html, o), browserError: null };
  } catch (e) {
    if (!(e instanceof NoBrowserError)) throw e;
    return { printer: null, browserError: e.message };
  }
}

/** Writes every job's report. Throws LoadError for a subject that is not there (before writing its files). */
export async function writeReportJobs(db: Db, req: ReportFilesRequest, env: NodeJS.ProcessEnv, say: (m: string) => void = () => {}): Promise<ReportFilesResult> {
  const { printer, browserError } = await printerFor(req, env, say);
  const out: ReportFilesResult = { written: [], failed: [] };
  if (req.jobs.length === 0) say('no sweeps since that date: nothing written');
  for (const job of req.jobs) {
    const source = subjectWords(job.subject);
    say(`${source}: analysing…`);
    const input = buildReport(db, job.subject, req.analysis, req.meta);
    // No browser: write the HTML instead of the PDF and say how to print it.
    const html = job.html ?? (job.pdf && !printer ? job.pdf.replace(/\.pdf$/i, '') + '.html' : undefined);
    say(`${source}: rendering${job.pdf && printer ? ' and printing' : ''}…`);
    try {
      const r = await writeReport(input, { pdf: printer ? job.pdf : undefined, html }, printer);
      out.written.push(...r.written);
      for (const f of r.written) say(`wrote ${f.path} (${f.bytes} bytes)`);
      if (job.pdf && !printer) {
        out.failed.push({ source, path: job.pdf, error: browserError! });
        say(`no PDF: ${browserError}. Open ${html} in a browser and print it to PDF (Ctrl+P, paper ${req.meta.paper === 'a4' ? 'A4' : 'Letter'}, background graphics on), or install chromium and run this again.`);
      }
    } catch (e) {
      if (!(e instanceof PrintError)) throw e;
      out.written.push(...e.written);
      out.failed.push({ source, path: job.pdf ?? '', error: e.message });
      say(`${source}: ${e.message.split('\n')[0]}`);
    }
  }
  return out;
}
