// JSON: a sweep's or dataset's whole bundle (re-importable; a dataset's carries its analysis too), or a comparison's
// figures.
import { buildReport } from '../../report/build';
import { datasetBundle, sweepBundle } from '../bundle';
import type { ExportWriter } from './writer';

export const jsonExport: ExportWriter = ({ db, subject, opts, author, paper }) => {
  if (subject.kind === 'dataset') return { suffix: '', data: JSON.stringify(datasetBundle(db, subject.dataset_id, opts.tariff)) };
  if (subject.kind === 'compare') return { suffix: '', data: JSON.stringify(buildReport(db, subject, opts, { author, paper }).comparison) };
  return { suffix: '', data: JSON.stringify(sweepBundle(db, subject.sweep_id, opts.tariff)) };
};
