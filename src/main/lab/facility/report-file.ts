// The Facility page's report: a run's result rendered as the facility report (src/core/report/facility.ts), as
// bytes for the page to save (HTML as is, PDF printed by the engine's printer).
import { renderFacilityReport } from '../../../core/report/facility';
import type { ExportedFile } from '../../../shared/export';
import type { FacilityResult } from '../../../shared/facility';
import type { PdfPrinter } from '../report/write';

export interface FacilityReportRequest {
  format: 'pdf' | 'html';
  paper: 'a4' | 'letter';
  author?: string;
  yaml: string;
}

export async function facilityReportFile(result: FacilityResult, req: FacilityReportRequest, printPdf: () => Promise<PdfPrinter>): Promise<ExportedFile> {
  const title = `${result.name}: facility power`;
  const html = renderFacilityReport({
    result,
    config_file: 'the Facility page’s configuration',
    config_yaml: req.yaml,
    title,
    author: req.author ?? null,
    generated_at: new Date().toISOString(),
    paper: req.paper,
  });
  const data = req.format === 'html' ? Buffer.from(html, 'utf8') : Buffer.from(await (await printPdf())(html, { paper: req.paper, footer: `CapLab facility report · ${title}` }));
  const stem = result.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'site';
  return { filename: `caplab-facility-${stem}.${req.format}`, mime: req.format === 'html' ? 'text/html' : 'application/pdf', bytes: data.length, data_base64: data.toString('base64') };
}
