// Files the caller names: exports and lab reports, over the engine's database. The engine holds one of these
// (`engine.files`); the CLI's export and report commands are faces over it.
import type { Db } from '../store/db';
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
