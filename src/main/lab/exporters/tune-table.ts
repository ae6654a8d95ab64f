// A tuning session's outcome as a CSV table, one row per figure (the report's Tuning section's list, unrounded):
// the app's tune-csv export and `caplab export tune` write it.
import type { Db } from '../store/db';
import { getSweep } from '../store/sweeps';
import { storedTuneStatus } from '../tune/interrupted';
import { ExportError } from '../files/atomic';
import { tuneOutcomeRows } from '../../../shared/tune-outcome';
import type { CsvTable } from './csv';

/** Throws ExportError for a sweep that is not a tuning session, or one whose status was not kept (only its text). */
export function tuneTable(db: Db, sweepId: number): CsvTable {
  const status = storedTuneStatus(db, sweepId);
  if (!status) {
    if (!getSweep(db, sweepId)?.tune_report) throw new ExportError(`sweep ${sweepId} is not a tuning session: tune-csv is the outcome of \`caplab tune\``);
    throw new ExportError(`sweep ${sweepId} keeps no tuning status, only its end report's text (see \`caplab runs ${sweepId}\` or its report)`);
  }
  return {
    headers: ['field', 'value', 'ci_lo', 'ci_hi', 'unit'],
    rows: tuneOutcomeRows(status).map((r) => [r.field, r.value, r.ci?.[0] ?? null, r.ci?.[1] ?? null, r.unit]),
  };
}
