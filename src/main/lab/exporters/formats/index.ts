// The writer of each export format of shared/exports.ts (typed to require one per format, and no other).
import type { ExportFormatId } from '../../../../shared/exports';
import type { ExportWriter } from './writer';
import { pdfReport, htmlReport } from './report';
import { capsCsv } from './caps-csv';
import { runsCsv } from './runs-csv';
import { segmentsCsv } from './segments-csv';
import { tuneCsv } from './tune-csv';
import { samplesCsv, samplesParquet } from './samples-file';
import { jsonExport } from './json';

export const exportWriters: { readonly [F in ExportFormatId]: ExportWriter } = {
  pdf: pdfReport,
  html: htmlReport,
  'caps-csv': capsCsv,
  'runs-csv': runsCsv,
  'segments-csv': segmentsCsv,
  'tune-csv': tuneCsv,
  'samples-csv': samplesCsv,
  'samples-parquet': samplesParquet,
  json: jsonExport,
};
