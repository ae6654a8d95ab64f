// previewImport: what an import with these options would read, before anything is written. Files are listed and
// detected as the import lists them (listImportFiles), and each one's first 64 KiB is read by the same format module.
import { basename } from 'node:path';
import { cutText } from '../../../shared/format';
import type { MethodInput, MethodOutput } from '../../../shared/api';
import type { PreviewFile } from '../../../shared/import-preview';
import { detectCandidates } from '../../../core/import';
import { previewFile } from '../../../core/import/preview';
import { checkZone, localZone } from '../../../core/import/time';
import { entryHead, HEAD_BYTES, listImportFiles } from './files';
import { DatasetError } from './requests';

/** Files previewed at most (a directory tree or archive may hold thousands; the rest are counted). */
const MAX_PREVIEW_FILES = 8;

export async function previewImport(input: MethodInput<'previewImport'>): Promise<MethodOutput<'previewImport'>> {
  let zone: string;
  try {
    zone = checkZone(input.tz ?? localZone());
  } catch {
    throw new DatasetError(`unknown time zone "${cutText(String(input.tz))}" (an IANA name such as Europe/Berlin, or UTC)`);
  }
  const names = new Map(Object.entries(input.display_names ?? {}));
  const shown = (p: string) => names.get(p) ?? p;
  const format = input.format ?? 'auto';
  let list;
  try {
    // Listed as for auto-detection, so that each file's detected format is known whatever was chosen.
    list = await listImportFiles(input.paths, 'auto');
  } catch (e) {
    let message = (e as Error).message;
    for (const [p, n] of names) message = message.replaceAll(p, n);
    throw new DatasetError(`cannot preview ${message}`);
  }
  try {
    if (list.files.length === 0) throw new DatasetError(`no files to import in ${shown(input.paths[0]!)} (an empty directory or archive)`);
    const files: PreviewFile[] = [];
    for (const f of list.files.slice(0, MAX_PREVIEW_FILES)) {
      const bytes = f.bytes === 0 ? Buffer.alloc(0) : await entryHead(f);
      const text = bytes.toString('utf8');
      const name = shown(f.path);
      const chosen = format === 'auto' ? null : format;
      const p = previewFile(text, f.bytes <= HEAD_BYTES, { detected: f.format, candidates: f.bytes === 0 ? [] : detectCandidates(text, basename(f.path)), chosen }, {
        file: name,
        zone,
        fields: input.fields,
        interval_s: input.interval_s,
        rows: input.rows ?? 10,
      });
      files.push({ ...p, bytes: f.bytes });
    }
    // Beside power logs, a file no format reads is left out (throughput logs are read for per-cap segments).
    if (files.some((f) => f.format !== null))
      for (const f of files)
        if (f.format === null)
          f.issues = f.issues.map((i) => (i.level === 'error' ? { level: 'warning', message: 'No format recognises this file: it is left out of the import (pick a format to read every file with it).', action: 'pick_format' } : i));
    return {
      format,
      zone,
      fields: input.fields ?? null,
      files,
      files_not_previewed: Math.max(0, list.files.length - files.length),
      ready: files.some((f) => f.format !== null) && !files.some((f) => f.issues.some((i) => i.level === 'error')),
    };
  } finally {
    list.close();
  }
}
