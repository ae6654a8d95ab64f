// The desktop app's PDF printer: Electron's printToPDF on a hidden, script-less window holding the report HTML.
import { BrowserWindow } from 'electron';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { footerTemplate, type PdfPrinter } from '../lab';

export const electronPdfPrinter: PdfPrinter = async (html, o) => {
  // A file rather than a data: URL, which Chromium caps in length.
  const dir = await mkdtemp(join(tmpdir(), 'caplab-report-'));
  const file = join(dir, 'report.html');
  const w = new BrowserWindow({ show: false, webPreferences: { sandbox: true, contextIsolation: true, javascript: false, nodeIntegration: false } });
  try {
    await writeFile(file, html);
    await w.loadFile(file);
    return await w.webContents.printToPDF({
      pageSize: o.paper === 'a4' ? 'A4' : 'Letter',
      printBackground: true,
      preferCSSPageSize: true,
      displayHeaderFooter: true,
      headerTemplate: '<span></span>',
      footerTemplate: footerTemplate(o.footer),
      generateDocumentOutline: true,
      generateTaggedPDF: true,
    });
  } finally {
    w.destroy();
    await rm(dir, { recursive: true, force: true });
  }
};
