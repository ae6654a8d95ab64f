// What an export format's writer gets and gives (the app's Export button, through exportForApp).
import type { Db } from '../../store/db';
import type { ReportOptions, ReportSubject } from '../../report/build';
import type { PdfPrinter } from '../../report/write';
import type { Paper } from '../../../../core/report/model';

export interface ExportJob {
  db: Db;
  /** Checked to exist, and one the format applies to (its labels in shared/exports.ts). */
  subject: ReportSubject;
  opts: ReportOptions;
  author: string | null;
  paper: Paper;
  printPdf: () => Promise<PdfPrinter>;
  /** Rows written of the total, for formats that take a while. */
  progress: (done: number, total: number) => void;
}

/** The file's contents, and what follows the subject's stem in its name ("-runs" makes caplab-sweep-3-runs.csv). */
export interface ExportPart {
  suffix: string;
  data: string | Uint8Array;
}

export type ExportWriter = (job: ExportJob) => ExportPart | Promise<ExportPart>;

/** The sweeps of a sweep or comparison subject (none for a dataset). */
export function sweepsOf(s: ReportSubject): number[] {
  return s.kind === 'sweep' ? [s.sweep_id] : s.kind === 'compare' ? s.sweep_ids : [];
}
