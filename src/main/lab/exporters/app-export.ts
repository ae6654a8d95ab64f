// The app's Export button: a format of shared/exports.ts of a sweep, a comparison of sweeps or a dataset, as bytes
// for the page to save. Each format's writer is in ./formats; this checks the request and names the file.
import type { Db } from '../store/db';
import { getSweep } from '../store/sweeps';
import { LoadError } from '../analysis/load';
import type { ReportSubject } from '../report/build';
import { loadDataset } from '../analysis/dataset-energy';
import { ExportError } from '../files/atomic';
import { exportWriters } from './formats';
import { sweepsOf } from './formats/writer';
import { ExportRequest, type ExportedFile, type ExportFormat } from '../../../shared/export';
import { exportInfo, SUBJECT_WORDS } from '../../../shared/exports';
import type { PdfPrinter } from '../report/write';

export interface AppExportOptions {
  printPdf: () => Promise<PdfPrinter>;
  /** Samples exports report rows written as they go. */
  progress?: (format: ExportFormat, done: number, total: number) => void;
}

function subjectOf(r: { sweep_id?: number; compare_ids?: number[]; dataset_id?: number }): ReportSubject {
  if (r.dataset_id !== undefined) return { kind: 'dataset', dataset_id: r.dataset_id };
  const sweeps = [r.sweep_id!, ...(r.compare_ids ?? [])];
  return sweeps.length > 1 ? { kind: 'compare', sweep_ids: sweeps } : { kind: 'sweep', sweep_id: sweeps[0]! };
}

const stemOf = (s: ReportSubject) => (s.kind === 'dataset' ? `caplab-dataset-${s.dataset_id}` : s.kind === 'compare' ? `caplab-compare-${s.sweep_ids.join('-')}` : `caplab-sweep-${s.sweep_id}`);

/**
 * Makes the file asked for. Throws LoadError for an unknown sweep or dataset, ExportError for a format that is not an
 * export of the subject, the printer's error when a PDF cannot be made.
 */
export async function exportForApp(db: Db, raw: unknown, o: AppExportOptions): Promise<ExportedFile> {
  const { sweep_id, compare_ids, dataset_id, format, paper, author, ...analysis } = ExportRequest.parse(raw);
  const subject = subjectOf({ sweep_id, compare_ids, dataset_id });
  for (const id of sweepsOf(subject)) if (!getSweep(db, id)) throw new LoadError(`no sweep ${id} in this database`);
  if (subject.kind === 'dataset') loadDataset(db, subject.dataset_id);
  const info = exportInfo(format);
  if (!info.labels[subject.kind]) {
    const instead = info.instead?.[subject.kind];
    throw new ExportError(`${format} is not an export of ${SUBJECT_WORDS[subject.kind]}${instead ? `: ${instead}` : ''}`);
  }
  const part = await exportWriters[format]({
    db,
    subject,
    opts: { ...analysis, overhead_w: analysis.overhead_w ?? null },
    author: author ?? null,
    paper,
    printPdf: o.printPdf,
    progress: (done, total) => o.progress?.(format, done, total),
  });
  const buf = typeof part.data === 'string' ? Buffer.from(part.data, 'utf8') : Buffer.from(part.data);
  return { filename: `${stemOf(subject)}${part.suffix}.${info.ext}`, mime: info.mime, bytes: buf.length, data_base64: buf.toString('base64') };
}
