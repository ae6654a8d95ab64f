import { mkdir, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { WrittenFile } from '../../../shared/export';
import { writeFileAtomic } from '../files/atomic';

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; null is empty. */
export function csvCell(v: string | number | boolean | null | undefined): string {
  if (v == null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export type CsvTable = { headers: string[]; rows: (string | number | boolean | null)[][] };

export function csvText(t: CsvTable): string {
  return [t.headers, ...t.rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

/** Writes tables as CSV files (atomically); a failure removes the ones already written by this call. */
export async function writeCsvTables(tables: { path: string; table: CsvTable }[], source: string): Promise<WrittenFile[]> {
  const written: WrittenFile[] = [];
  try {
    for (const { path, table } of tables) {
      await mkdir(dirname(resolve(path)), { recursive: true });
      const bytes = await writeFileAtomic(path, csvText(table));
      written.push({ kind: 'csv', path: resolve(path), bytes, rows: table.rows.length, source });
    }
  } catch (e) {
    await Promise.all(written.map((w) => rm(w.path, { force: true })));
    throw e;
  }
  return written;
}
