// The small CSVs a facility config (and a tariff) names: hourly prices, carbon intensity, temperature, power
// profiles. Here, not in facility/, so that the analysis reads a tariff's CSVs as the planner does without
// depending on the planner. Errors name the field and the file, row by row.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { YearSeries } from '../../../core/facility/overheads';
import { FacilityConfigError } from './errors';

/** Where relative paths are read from (a config file's folder). */
export interface CsvBase {
  baseDir: string;
}

export function pathOf(file: string, opts: CsvBase): string {
  return isAbsolute(file) ? file : resolve(opts.baseDir, file);
}

/** Splits a small CSV into header and rows (no quoted commas: these files are numbers and timestamps). */
export function readCsv(file: string, field: string, opts: CsvBase): { header: string[]; rows: string[][] } {
  let text: string;
  try {
    text = readFileSync(pathOf(file, opts), 'utf8');
  } catch (e) {
    throw new FacilityConfigError(`${field}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  if (lines.length < 2) throw new FacilityConfigError(`${field}: ${file} has no data rows`);
  return { header: lines[0]!.split(',').map((h) => h.trim()), rows: lines.slice(1).map((l) => l.split(',').map((c) => c.trim())) };
}

export function numberAt(rows: string[][], col: number, field: string, file: string): number[] {
  return rows.map((r, i) => {
    const v = Number(r[col]);
    if (r[col] === undefined || r[col] === '' || !Number.isFinite(v)) throw new FacilityConfigError(`${field}: ${file} row ${i + 2}: "${r[col] ?? ''}" is not a number`);
    return v;
  });
}

/** timestamp,value CSV (hourly prices, carbon intensity, temperature), first two columns. */
export function readYearCsv(file: string, field: string, opts: CsvBase): YearSeries {
  const { rows } = readCsv(file, field, opts);
  const t_ms = rows.map((r, i) => {
    const ms = Date.parse(r[0] ?? '');
    if (!Number.isFinite(ms)) throw new FacilityConfigError(`${field}: ${file} row ${i + 2}: "${r[0]}" is not a timestamp`);
    return ms;
  });
  const value = numberAt(rows, 1, field, file);
  if (value.some((v) => v < 0) && field !== 'overheads.temperature.csv') throw new FacilityConfigError(`${field}: ${file} has negative values`);
  return { t_ms, value };
}
