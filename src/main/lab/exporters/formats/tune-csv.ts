// A tuning session's outcome, one row per figure (a sweep subject only: shared/exports.ts refuses the others).
import { tuneTable } from '../tune-table';
import { csvText } from '../csv';
import { sweepsOf, type ExportWriter } from './writer';

export const tuneCsv: ExportWriter = ({ db, subject }) => ({ suffix: '-tune', data: csvText(tuneTable(db, sweepsOf(subject)[0]!)) });
