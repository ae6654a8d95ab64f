// The app's Export button: a report or export of a sweep, a comparison of sweeps or a dataset, as bytes for the
// page to save. Samples are streamed to a temp file by the CLI's exporters, then handed over.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../store/db';
import { getSweep, runsOfSweep } from '../store/sweeps';
import { LoadError } from '../analysis/load';
import { buildReport, type ReportSubject } from '../report/build';
import { footerText } from '../report/write';
import { renderReport } from '../../../core/report/html';
import { analyzeStoredSweep } from '../analysis/analyze-stored';
import { analyzeDataset, loadDataset } from '../datasets/analysis';
import { sweepBundle } from './bundle';
import { capsTable, runsTable, segmentsTable, withSweepColumn } from './tables';
import { csvText } from './csv';
import { exportSamplesCsv, exportSamplesParquet } from './samples';
import { ExportError } from './atomic';
import { ALL_SAMPLE_COLUMNS, type SampleSelection } from '../store/sample-stream';
import { ExportRequest, type ExportedFile, type ExportFormat } from '../../../shared/export';
import type { PdfPrinter } from '../report/write';

const file = (filename: string, mime: string, data: string | Uint8Array): ExportedFile => {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  return { filename, mime, bytes: buf.length, data_base64: buf.toString('base64') };
};

/** Samples of a selection through the streaming exporters (to a temp file), then as bytes. */
async function samplesFile(db: Db, sel: SampleSelection, format: 'samples-csv' | 'samples-parquet', filename: string, progress?: (done: number, total: number) => void): Promise<ExportedFile> {
  const dir = await mkdtemp(join(tmpdir(), 'caplab-export-'));
  try {
    const path = join(dir, filename);
    const o = { selection: sel, columns: ALL_SAMPLE_COLUMNS, time: 'epoch' as const, progress };
    if (format === 'samples-csv') await exportSamplesCsv(db, path, o);
    else await exportSamplesParquet(db, path, o);
    return file(filename, format === 'samples-csv' ? 'text/csv' : 'application/vnd.apache.parquet', await readFile(path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface AppExportOptions {
  printPdf: () => Promise<PdfPrinter>;
  /** Samples exports report rows written as they go. */
  progress?: (format: ExportFormat, done: number, total: number) => void;
}

/** Makes the file asked for. Throws LoadError for an unknown sweep or dataset; the printer's error when a PDF cannot be made. */
export async function exportForApp(db: Db, raw: unknown, o: AppExportOptions): Promise<ExportedFile> {
  const r = ExportRequest.parse(raw);
  const { sweep_id, compare_ids, dataset_id, format, paper, author, ...analysis } = r;
  const opts = { ...analysis, overhead_w: analysis.overhead_w ?? null };
  const progress = (done: number, total: number) => o.progress?.(format, done, total);
  const sweeps = sweep_id === undefined ? [] : [sweep_id, ...(compare_ids ?? [])];
  for (const id of sweeps) if (!getSweep(db, id)) throw new LoadError(`no sweep ${id} in this database`);
  if (dataset_id !== undefined) loadDataset(db, dataset_id);
  const compare = sweeps.length > 1;
  const stem = dataset_id !== undefined ? `caplab-dataset-${dataset_id}` : compare ? `caplab-compare-${sweeps.join('-')}` : `caplab-sweep-${sweep_id}`;
  const subject: ReportSubject = dataset_id !== undefined ? { kind: 'dataset', dataset_id } : compare ? { kind: 'compare', sweep_ids: sweeps } : { kind: 'sweep', sweep_id: sweep_id! };
  const notFor = (what: string) => new ExportError(`${format} is not an export of ${what}`);
  switch (format) {
    case 'pdf':
    case 'html': {
      const input = buildReport(db, subject, opts, { author: author ?? null, paper });
      const html = renderReport(input);
      if (format === 'html') return file(`${stem}-report.html`, 'text/html', html);
      const print = await o.printPdf();
      return file(`${stem}-report.pdf`, 'application/pdf', await print(html, { paper, footer: footerText(input) }));
    }
    case 'runs-csv':
      if (dataset_id !== undefined) throw notFor('a dataset (its segments are segments-csv)');
      return file(`${stem}-runs.csv`, 'text/csv', csvText(compare ? withSweepColumn(sweeps.map((id) => ({ sweep_id: id, table: runsTable(runsOfSweep(db, id)) }))) : runsTable(runsOfSweep(db, sweep_id!))));
    case 'caps-csv': {
      if (dataset_id !== undefined) {
        const a = analyzeDataset(db, dataset_id, opts).sweep;
        if (!a) throw new ExportError(`dataset ${dataset_id} has no per-cap analysis: no segment carries a cap and work units`);
        return file(`${stem}-caps.csv`, 'text/csv', csvText(capsTable(a)));
      }
      const tables = sweeps.map((id) => ({ sweep_id: id, table: capsTable(analyzeStoredSweep(db, id, opts).result) }));
      return file(`${stem}-caps.csv`, 'text/csv', csvText(compare ? withSweepColumn(tables) : tables[0]!.table));
    }
    case 'segments-csv':
      if (dataset_id === undefined) throw notFor('a sweep (its runs are runs-csv)');
      return file(`${stem}-segments.csv`, 'text/csv', csvText(segmentsTable(analyzeDataset(db, dataset_id, opts).segments)));
    case 'samples-csv':
    case 'samples-parquet':
      if (compare) throw notFor('a comparison: export each sweep’s samples from its own page');
      return samplesFile(db, dataset_id !== undefined ? { datasetId: dataset_id } : { sweepId: sweep_id }, format, `${stem}-samples.${format === 'samples-csv' ? 'csv' : 'parquet'}`, progress);
    case 'json':
      if (dataset_id !== undefined) return file(`${stem}-analysis.json`, 'application/json', JSON.stringify(analyzeDataset(db, dataset_id, opts)));
      if (compare) return file(`${stem}.json`, 'application/json', JSON.stringify(buildReport(db, subject, opts, { author: author ?? null, paper }).comparison));
      return file(`${stem}.json`, 'application/json', JSON.stringify(sweepBundle(db, sweep_id!)));
  }
}
