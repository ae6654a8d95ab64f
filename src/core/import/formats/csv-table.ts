// Small header-first CSV tables (Zeus window logs, CodeCarbon emissions.csv, facility profiles): one record per
// line as name → raw string, quotes honoured, rows with the wrong field count skipped.
import type { ReportBuilder } from '../report';
import { ImportError, noHeaderReason } from '../report';
import { LineSplitter, splitFields } from '../scan';

export function csvTable(file: string, rep: ReportBuilder, onRecord: (rec: Record<string, string>, line: number) => void, onHeader: (names: string[], line: number) => void) {
  let names: string[] | null = null;
  const onLine = (s: string, a: number, b: number, line: number) => {
    const text = s.slice(a, b);
    if (!text.trim()) return;
    const fields = splitFields(text, ',');
    if (!names) {
      if (fields.length === 1 && /[;\t]/.test(text)) throw new ImportError(file, line, `wrong delimiter: expected commas, found ${text.includes(';') ? '";"' : 'tabs'}`);
      names = fields;
      onHeader(names, line);
      return;
    }
    if (fields.length !== names.length) {
      rep.skip(line, `${fields.length} fields where the header has ${names.length}`);
      return;
    }
    const rec: Record<string, string> = {};
    names.forEach((n, i) => (rec[n] = fields[i]!));
    onRecord(rec, line);
  };
  const lines = new LineSplitter(onLine, (line) => rep.skip(line, 'line longer than 64 KiB'));
  return {
    push: (t: string) => lines.push(t),
    end: () => {
      lines.end();
      if (!names) throw new ImportError(file, null, noHeaderReason(rep, 'no header line'));
    },
  };
}

/** A number or NaN (empty cells are missing). */
export const num = (v: string | undefined): number => (v === undefined || v.trim() === '' ? NaN : Number(v));
