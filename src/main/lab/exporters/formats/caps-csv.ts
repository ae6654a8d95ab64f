// The per-cap table of a sweep, of compared sweeps (with a sweep column) or of a dataset's capped segments.
import { analyzeStoredSweep } from '../../analysis/analyze-stored';
import { analyzeDataset } from '../../datasets/analysis';
import { capsTable, withSweepColumn } from '../tables';
import { csvText } from '../csv';
import { ExportError } from '../../files/atomic';
import { sweepsOf, type ExportWriter } from './writer';

export const capsCsv: ExportWriter = ({ db, subject, opts }) => {
  if (subject.kind === 'dataset') {
    const a = analyzeDataset(db, subject.dataset_id, opts).sweep;
    if (!a) throw new ExportError(`dataset ${subject.dataset_id} has no per-cap analysis: no segment carries a cap and work units`);
    return { suffix: '-caps', data: csvText(capsTable(a)) };
  }
  const tables = sweepsOf(subject).map((id) => ({ sweep_id: id, table: capsTable(analyzeStoredSweep(db, id, opts).result) }));
  return { suffix: '-caps', data: csvText(subject.kind === 'compare' ? withSweepColumn(tables) : tables[0]!.table) };
};
