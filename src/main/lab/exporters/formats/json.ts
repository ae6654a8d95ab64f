// JSON: a sweep's whole bundle (re-importable), a comparison's figures, or a dataset's analysis.
import { analyzeDataset } from '../../datasets/analysis';
import { buildReport } from '../../report/build';
import { sweepBundle } from '../bundle';
import type { ExportWriter } from './writer';

export const jsonExport: ExportWriter = ({ db, subject, opts, author, paper }) => {
  if (subject.kind === 'dataset') return { suffix: '-analysis', data: JSON.stringify(analyzeDataset(db, subject.dataset_id, opts)) };
  if (subject.kind === 'compare') return { suffix: '', data: JSON.stringify(buildReport(db, subject, opts, { author, paper }).comparison) };
  return { suffix: '', data: JSON.stringify(sweepBundle(db, subject.sweep_id)) };
};
