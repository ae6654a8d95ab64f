/** What an export is of: one sweep, several sweeps compared (the first is the baseline), or an imported dataset. */
export type ExportSubject = 'sweep' | 'compare' | 'dataset';

/** Each subject in words, for errors ("… is not an export of a dataset"). */
export const SUBJECT_WORDS: Record<ExportSubject, string> = { sweep: 'a sweep', compare: 'a comparison', dataset: 'a dataset' };

export interface ExportFormatInfo {
  /** File type: the saved file's extension, and the `kind` of a file `caplab report` / `caplab export` wrote. */
  ext: string;
  mime: string;
  /** Its Export-menu label for each subject it applies to; a subject without one is refused. */
  labels: Partial<Record<ExportSubject, string>>;
  /** Where to look instead, for a subject it does not apply to (said in the refusal). */
  instead?: Partial<Record<ExportSubject, string>>;
}

/**
 * The app's export formats, one line each, in Export-menu order. Each is written by its writer in
 * `src/main/lab/exporters/formats/index.ts` (`exportWriters`, typed to require one per format).
 */
export const exportList = [
  { id: 'pdf', ext: 'pdf', mime: 'application/pdf', labels: { sweep: 'PDF report', compare: 'PDF report', dataset: 'PDF report' } },
  { id: 'html', ext: 'html', mime: 'text/html', labels: { sweep: 'HTML report', compare: 'HTML report', dataset: 'HTML report' } },
  { id: 'caps-csv', ext: 'csv', mime: 'text/csv', labels: { sweep: 'Per-cap table (CSV)', compare: 'Per-cap table (CSV)', dataset: 'Per-cap table (CSV)' } },
  { id: 'runs-csv', ext: 'csv', mime: 'text/csv', labels: { sweep: 'Runs (CSV)', compare: 'Runs (CSV)' }, instead: { dataset: 'its segments are segments-csv' } },
  { id: 'segments-csv', ext: 'csv', mime: 'text/csv', labels: { dataset: 'Segments (CSV)' }, instead: { sweep: 'its runs are runs-csv', compare: 'its runs are runs-csv' } },
  { id: 'tune-csv', ext: 'csv', mime: 'text/csv', labels: { sweep: 'Tuning outcome (CSV)' }, instead: { compare: 'export each tuning session’s outcome from its own page', dataset: 'a dataset is not a tuning session: tune-csv is the outcome of caplab tune' } },
  { id: 'samples-csv', ext: 'csv', mime: 'text/csv', labels: { sweep: 'Samples (CSV)', dataset: 'Samples (CSV)' }, instead: { compare: 'export each sweep’s samples from its own page' } },
  { id: 'samples-parquet', ext: 'parquet', mime: 'application/vnd.apache.parquet', labels: { sweep: 'Samples (Parquet)', dataset: 'Samples (Parquet)' }, instead: { compare: 'export each sweep’s samples from its own page' } },
  { id: 'json', ext: 'json', mime: 'application/json', labels: { sweep: 'Whole sweep (JSON)', compare: 'Comparison (JSON)', dataset: 'Whole dataset (JSON)' } },
] as const satisfies readonly ({ id: string } & ExportFormatInfo)[];

export type ExportFormatId = (typeof exportList)[number]['id'];
export const exportFormatIds = exportList.map((e) => e.id) as [ExportFormatId, ...ExportFormatId[]];

/** The file types the formats write, each once (pdf, html, csv, parquet, json). */
export type ExportFileKind = (typeof exportList)[number]['ext'];
export const exportFileKinds = [...new Set(exportList.map((e) => e.ext))] as [ExportFileKind, ...ExportFileKind[]];

export function exportInfo(id: ExportFormatId): ExportFormatInfo {
  return exportList.find((e) => e.id === id)!;
}

/** The Export menu of a subject: its formats with their labels, in list order. */
export function exportItems(subject: ExportSubject): { format: ExportFormatId; label: string }[] {
  return exportList.flatMap((e) => {
    const label = (e.labels as ExportFormatInfo['labels'])[subject];
    return label ? [{ format: e.id, label }] : [];
  });
}

/** The formats a report document comes in: the lab report's and the facility report's (printed PDF, or its HTML). */
export const reportDocumentFormats = ['pdf', 'html'] as const satisfies readonly ExportFormatId[];
export type ReportDocumentFormat = (typeof reportDocumentFormats)[number];
