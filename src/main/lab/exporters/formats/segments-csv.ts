// A dataset's segments with their analysed figures.
import { analyzeDataset } from '../../datasets/analysis';
import { segmentsTable } from '../tables';
import { csvText } from '../csv';
import { ExportError } from '../../files/atomic';
import type { ExportWriter } from './writer';

export const segmentsCsv: ExportWriter = ({ db, subject, opts }) => {
  if (subject.kind !== 'dataset') throw new ExportError('segments-csv is an export of a dataset');
  return { suffix: '-segments', data: csvText(segmentsTable(analyzeDataset(db, subject.dataset_id, opts).segments)) };
};
