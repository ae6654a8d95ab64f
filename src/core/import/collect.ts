// Runs a parser over whole text and gathers its batches into one table per device: for tests, small files
// and the fuzz suite (big files stream straight into the store instead).
import type { ImportFormat } from '../../shared/dataset';
import { CHANNELS, type Channel, type ColumnBatch } from './batch';
import { createParser } from './index';
import type { ParseResult, ParserOptions } from './parser';

export interface Collected extends ParseResult {
  rows: { t: number; device: number; values: Partial<Record<Channel, number>> }[];
}

export function parseAll(format: ImportFormat, text: string | string[], opts: Omit<ParserOptions, 'emit'>): Collected {
  const batches: ColumnBatch[] = [];
  const p = createParser(format, { ...opts, emit: (b) => batches.push(b) });
  for (const chunk of Array.isArray(text) ? text : [text]) p.push(chunk);
  const res = p.end();
  const rows: Collected['rows'] = [];
  for (const b of batches)
    for (let i = 0; i < b.n; i++) {
      const values: Partial<Record<Channel, number>> = {};
      for (const c of CHANNELS) if (!Number.isNaN(b.cols[c][i]!)) values[c] = b.cols[c][i]!;
      rows.push({ t: b.t[i]!, device: b.device[i]!, values });
    }
  return { ...res, rows };
}
