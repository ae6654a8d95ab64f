// The run summaries of a sweep, or of compared sweeps with a sweep column.
import { runsOfSweep } from '../../store/sweeps';
import { runsTable, withSweepColumn } from '../tables';
import { csvText } from '../csv';
import { sweepsOf, type ExportWriter } from './writer';

export const runsCsv: ExportWriter = ({ db, subject }) => {
  const tables = sweepsOf(subject).map((id) => ({ sweep_id: id, table: runsTable(runsOfSweep(db, id)) }));
  return { suffix: '-runs', data: csvText(subject.kind === 'compare' ? withSweepColumn(tables) : tables[0]!.table) };
};
