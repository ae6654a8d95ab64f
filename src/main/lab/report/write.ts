// Report files: the HTML written atomically, the PDF printed by a printer (headless Chromium in the CLI and the
// browser host, Electron's printToPDF in the app) and then written atomically. Nothing half-written is left.
import { renderReport } from '../../../core/report/html';
import type { Paper, ReportInput } from '../../../core/report/model';
import type { WrittenFile } from '../../../shared/export';
import { checkWritable, writeFileAtomic } from '../files/atomic';

/** Turns report HTML into PDF bytes. */
export type PdfPrinter = (html: string, opts: { paper: Paper; footer: string }) => Promise<Uint8Array>;

export interface ReportTargets {
  pdf?: string;
  html?: string;
}

/** The PDF could not be printed; `written` lists what was written anyway (the HTML, when asked for). */
export class PrintError extends Error {
  constructor(
    message: string,
    readonly written: WrittenFile[],
  ) {
    super(message);
    this.name = 'PrintError';
  }
}

function reportSourceText(input: ReportInput): string {
  return input.kind === 'compare' ? `compare ${input.sources.map((s) => s.sweep?.id ?? s.label).join(',')}` : input.sources[0]!.label;
}

export function footerText(input: ReportInput): string {
  return `CapLab report · ${input.title}`;
}

/**
 * Writes a rendered report to the files asked for. Both paths are checked before anything is printed; the PDF is
 * printed before any file is written, so a printer failure leaves no PDF behind (the HTML is still written when
 * asked for: it is what the user prints by hand).
 */
export async function writeReportFiles(
  html: string,
  doc: { paper: Paper; footer: string; source: string },
  targets: ReportTargets,
  printer: PdfPrinter | null,
): Promise<WrittenFile[]> {
  const pdfPath = targets.pdf ? await checkWritable(targets.pdf) : null;
  const htmlPath = targets.html ? await checkWritable(targets.html) : null;
  const written: WrittenFile[] = [];
  let pdf: Uint8Array | null = null;
  let printError: string | null = null;
  if (pdfPath) {
    try {
      if (!printer) throw new Error('no PDF printer');
      pdf = await printer(html, { paper: doc.paper, footer: doc.footer });
    } catch (e) {
      printError = (e as Error).message;
    }
  }
  if (htmlPath) written.push({ kind: 'html', path: htmlPath, bytes: await writeFileAtomic(htmlPath, html), rows: null, source: doc.source });
  if (printError !== null) throw new PrintError(`cannot print the PDF: ${printError}`, written);
  if (pdfPath && pdf) written.push({ kind: 'pdf', path: pdfPath, bytes: await writeFileAtomic(pdfPath, pdf), rows: null, source: doc.source });
  return written;
}

/** Renders the lab report and writes the files asked for (writeReportFiles). */
export async function writeReport(input: ReportInput, targets: ReportTargets, printer: PdfPrinter | null): Promise<{ written: WrittenFile[]; html: string }> {
  // Paths are checked before the (possibly long) rendering.
  if (targets.pdf) await checkWritable(targets.pdf);
  if (targets.html) await checkWritable(targets.html);
  const html = renderReport(input);
  const written = await writeReportFiles(html, { paper: input.paper, footer: footerText(input), source: reportSourceText(input) }, targets, printer);
  return { written, html };
}
