// The app's Export button: a report or export of a sweep (or a comparison) as bytes for the page to save.
import type { Db } from '../store/db';
import { getSweep, runsOfSweep } from '../store/sweeps';
import { LoadError } from '../analysis/load';
import { buildReport } from '../report/build';
import { footerText } from '../report/write';
import { renderReport } from '../../../core/report/html';
import { analyzeStoredSweep } from '../analysis/analyze-stored';
import { sweepBundle } from './bundle';
import { capsTable, runsTable } from './tables';
import { csvText } from './csv';
import { ExportRequest, type ExportedFile } from '../../../shared/export';
import type { PdfPrinter } from '../report/write';

const file = (filename: string, mime: string, data: string | Uint8Array): ExportedFile => {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  return { filename, mime, bytes: buf.length, data_base64: buf.toString('base64') };
};

/** Makes the file asked for. Throws LoadError for an unknown sweep; the printer's error when a PDF cannot be made. */
export async function exportForApp(db: Db, raw: unknown, printPdf: () => Promise<PdfPrinter>): Promise<ExportedFile> {
  const r = ExportRequest.parse(raw);
  const { sweep_id, compare_ids, format, paper, author, ...analysis } = r;
  const opts = { ...analysis, overhead_w: analysis.overhead_w ?? null };
  for (const id of [sweep_id, ...(compare_ids ?? [])]) if (!getSweep(db, id)) throw new LoadError(`no sweep ${id} in this database`);
  const stem = compare_ids?.length ? `caplab-compare-${[sweep_id, ...compare_ids].join('-')}` : `caplab-sweep-${sweep_id}`;
  switch (format) {
    case 'pdf':
    case 'html': {
      const subject = compare_ids?.length ? { kind: 'compare' as const, sweep_ids: [sweep_id, ...compare_ids] } : { kind: 'sweep' as const, sweep_id };
      const input = buildReport(db, subject, opts, { author: author ?? null, paper });
      const html = renderReport(input);
      if (format === 'html') return file(`${stem}-report.html`, 'text/html', html);
      const print = await printPdf();
      return file(`${stem}-report.pdf`, 'application/pdf', await print(html, { paper, footer: footerText(input) }));
    }
    case 'runs-csv':
      return file(`${stem}-runs.csv`, 'text/csv', csvText(runsTable(runsOfSweep(db, sweep_id))));
    case 'caps-csv':
      return file(`${stem}-caps.csv`, 'text/csv', csvText(capsTable(analyzeStoredSweep(db, sweep_id, opts).result)));
    case 'json':
      return file(`${stem}.json`, 'application/json', JSON.stringify(sweepBundle(db, sweep_id)));
  }
}
