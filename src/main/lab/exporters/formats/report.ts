// The lab report of a sweep, a comparison or a dataset, as HTML or printed to PDF.
import { buildReport } from '../../report/build';
import { footerText } from '../../report/write';
import { renderReport } from '../../../../core/report/html';
import type { ExportJob, ExportWriter } from './writer';

const reportOf = (j: ExportJob) => buildReport(j.db, j.subject, j.opts, { author: j.author, paper: j.paper });

export const htmlReport: ExportWriter = (j) => ({ suffix: '-report', data: renderReport(reportOf(j)) });

export const pdfReport: ExportWriter = async (j) => {
  const input = reportOf(j);
  const print = await j.printPdf();
  return { suffix: '-report', data: await print(renderReport(input), { paper: j.paper, footer: footerText(input) }) };
};
