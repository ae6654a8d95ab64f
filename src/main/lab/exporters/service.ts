// The exports slice (src/shared/api/exports.ts): the app's Export menu, a file's bytes for the page to save; and
// files the caller names, exports and lab reports over the engine's database (`engine.files`: the CLI's export
// and report commands are faces over it).
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import type { Db } from '../store/db';
import type { EngineContext } from '../engine-context';
import type { PdfPrinter } from '../report/write';
import { exportForApp } from './app-export';
import { writeFileExport, type FileExport, type FileExportHooks } from './file-exports';
import { writeReportJobs, type ReportFilesRequest, type ReportFilesResult } from './report-files';
import type { WrittenFile } from '../../../shared/export';

export type { FileExport, FileExportHooks, ReportFilesRequest, ReportFilesResult };

export class FileOutputs {
  constructor(
    private readonly db: Db,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Samples, run summaries, analysis tables or a JSON bundle, to the paths in the request. */
  export(req: FileExport, hooks?: FileExportHooks): Promise<WrittenFile[]> {
    return writeFileExport(this.db, req, hooks);
  }

  /** Reports of sweeps, datasets or comparisons as PDF and/or HTML; a job whose PDF cannot be printed is in `failed`. */
  reports(req: ReportFilesRequest, say?: (line: string) => void): Promise<ReportFilesResult> {
    return writeReportJobs(this.db, req, this.env, say);
  }
}

export class ExportsService implements SliceApi<'exports'> {
  constructor(
    private readonly ctx: EngineContext,
    /** The PDF printer of exports: the app's (Electron) or a headless Chromium found on demand. */
    private readonly printPdf: () => Promise<PdfPrinter>,
  ) {}

  async exportFile(input: MethodInput<'exportFile'>): Promise<MethodOutput<'exportFile'>> {
    return exportForApp(this.ctx.db, input, { printPdf: this.printPdf, progress: (format, done, total) => this.ctx.emit('export.progress', { format, done, total }) });
  }
}
