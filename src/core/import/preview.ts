// The import preview: a file's head read by the same format module the import would use, with what the page can do
// about what it finds (pick the format, give the field list, set the time zone). Pure: the engine reads the bytes.
import { cutText } from '../../shared/format';
import type { ImportFormat } from '../../shared/dataset';
import type { PreviewFile, PreviewIssue, PreviewRow } from '../../shared/import-preview';
import { CHANNELS, type ColumnBatch } from './batch';
import { formatModule } from './formats';
import type { FormatReader } from './format-module';
import { createParser } from './index';
import { ImportError, noSampleReason } from './report';

export interface PreviewOptions {
  /** The file as the user named it: messages say this, never a temp path. */
  file: string;
  zone: string;
  fields?: string[];
  interval_s?: number;
  rows: number;
}

/** What detection found for a file, and the format chosen (auto: null). */
export interface PreviewFormats {
  detected: ImportFormat | null;
  candidates: ImportFormat[];
  chosen: ImportFormat | null;
}

const HEAD_LINES = 12;

/** What each reader that is no streaming parser does with the file, for a note in place of rows. */
const NOT_STREAMED: Record<Exclude<FormatReader['kind'], 'stream'>, string> = {
  'sweep-bundle': 'A CapLab JSON export: it becomes a sweep or dataset again on import; there are no rows to preview.',
  'parquet-profiles': 'Parquet profiles are read with their workload metadata on import; there are no rows to preview.',
};

type Parsed = Omit<PreviewFile, 'file' | 'bytes' | 'detected' | 'candidates' | 'format' | 'head' | 'issues' | 'zone_applies'> & {
  error: ImportError | null;
  /** Why no reading was read, where the parser read the head without refusing it. */
  noRows: string | null;
};

/** Parses `text` (the file's head; `complete`: the whole file) with `format`, keeping the first rows. */
function parseHead(format: ImportFormat, text: string, complete: boolean, o: PreviewOptions, zone: string): Parsed {
  // A head cut mid-line would end in a truncated row the file does not have.
  const body = complete ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  const batches: ColumnBatch[] = [];
  let kept = 0;
  const parser = createParser(format, {
    file: o.file,
    zone,
    fields: o.fields,
    interval_s: o.interval_s,
    batchRows: Math.max(o.rows, 64),
    emit: (b) => {
      if (kept < o.rows) batches.push(b);
      kept += b.n;
    },
  });
  let error: ImportError | null = null;
  try {
    parser.push(body);
    parser.end();
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    error = e;
  }
  const r = parser.report;
  const rows: PreviewRow[] = [];
  const used = new Set<string>();
  for (const b of batches)
    for (let i = 0; i < b.n && rows.length < o.rows; i++) {
      const values: Record<string, number | null> = {};
      for (const c of CHANNELS) {
        const v = b.cols[c][i]!;
        if (Number.isNaN(v)) continue;
        values[c] = v;
        used.add(c);
      }
      rows.push({ t: b.t[i]!, device: r.devices[b.device[i]!]?.key ?? '?', values });
    }
  for (const row of rows) for (const c of used) row.values[c] ??= null;
  return {
    columns: r.columns,
    devices: r.devices,
    clock: r.clock,
    channels: CHANNELS.filter((c) => used.has(c)),
    rows,
    rows_read: r.rows_read,
    rows_skipped: r.rows_skipped,
    skipped: r.skipped,
    warnings: r.warnings,
    error,
    noRows: error === null && r.rows_read === 0 ? noSampleReason(r) : null,
  };
}

/** The first lines of a text head, each cut short (a 64 KiB line is not for a table cell). */
function headLines(text: string): string[] {
  if (text.startsWith('PAR1')) return [];
  return text
    .split(/\r?\n/)
    .slice(0, HEAD_LINES)
    .map((l) => cutText(l, 400));
}

/**
 * One file's preview from its head (first 64 KiB as UTF-8; `complete` when that is the whole file): read with the
 * chosen format, else the detected one, with issues worded as what the page offers.
 */
export function previewFile(text: string, complete: boolean, f: PreviewFormats, o: PreviewOptions): Omit<PreviewFile, 'bytes'> {
  const format = f.chosen ?? f.detected;
  const base = { file: o.file, detected: f.detected, candidates: f.candidates, format, head: headLines(text) };
  const empty = { columns: [], devices: [], clock: null, zone_applies: false, channels: [], rows: [], rows_read: 0, rows_skipped: 0, skipped: [], warnings: [] };
  if (format === null) {
    const message =
      text.length === 0
        ? 'The file is empty: there is nothing to import.'
        : 'No format recognises this file. Pick its format in the list above; a headerless nvidia-smi log also needs its field list.';
    return { ...base, ...empty, issues: [{ level: 'error', message, action: text.length === 0 ? null : 'pick_format' }] };
  }
  const reader = formatModule(format).reader;
  if (reader.kind !== 'stream') return { ...base, ...empty, issues: [{ level: 'note', message: NOT_STREAMED[reader.kind], action: null }] };
  const p = parseHead(format, text, complete, o, o.zone);
  // Timestamps written without a zone read differently in another one: that is when the zone picker matters.
  const probe = o.zone === 'UTC' ? 'Asia/Kolkata' : 'UTC';
  const other = p.clock === 'wall' && p.rows.length ? parseHead(format, text, complete, { ...o, rows: 1 }, probe) : null;
  const zoneApplies = other !== null && other.rows.length > 0 && other.rows[0]!.t !== p.rows[0]!.t;
  const issues: PreviewIssue[] = [];
  if (p.error) issues.push(errorIssue(p.error, format, f));
  else if (p.noRows !== null) issues.push({ level: 'error', message: sentence(p.noRows), action: 'pick_format' });
  if (f.chosen !== null && f.detected !== null && f.chosen !== f.detected) issues.push({ level: 'note', message: `Read as ${f.chosen}; detection picks ${f.detected} for this file.`, action: 'pick_format' });
  if (zoneApplies) issues.push({ level: 'note', message: `Timestamps carry no time zone: read as ${o.zone} wall-clock time. Set the zone the log was written in if it was another.`, action: 'set_tz' });
  if (p.clock === 'relative' && p.rows.length) issues.push({ level: 'note', message: 'No timestamps: times are seconds from the start of the log.', action: null });
  const { error: _error, noRows: _noRows, ...rest } = p;
  return { ...base, ...rest, zone_applies: zoneApplies, issues };
}

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.');

/** A parser's refusal as the page's issue: the field list where that is what is missing, else the reason and where. */
function errorIssue(e: ImportError, format: ImportFormat, f: PreviewFormats): PreviewIssue {
  if (e.need === 'fields')
    return {
      level: 'error',
      message: `No ${format} header line: give the field list the log was written with (its --query-gpu list, for instance timestamp,index,power.draw,clocks.sm).`,
      action: 'set_fields',
    };
  const where = e.line !== null ? `Line ${e.line}: ` : '';
  const other = f.candidates.filter((c) => c !== format);
  const hint = other.length ? ` It may be ${other.join(' or ')}: pick that format.` : f.chosen !== null ? ' If it is not a log of this format, pick another.' : '';
  return { level: 'error', message: `${where}${sentence(e.reason)}${hint}`, action: 'pick_format' };
}
