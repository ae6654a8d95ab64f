// `caplab import FILE.json` of CapLab's own JSON export (caplab.export/1, src/shared/export.ts): a sweep bundle
// becomes a sweep again (runs, devices, every sample and metric, bit for bit), so the same analysis comes out.
// The bundle is one JSON document and is parsed whole (export writes it whole too); its SHA-256 is kept in the
// sweep's environment so the same file imported twice is found, not duplicated.
import { createHash } from 'node:crypto';
import { ImportError } from '../../../core/import';
import { EXPORT_SCHEMA, ExportBundle } from '../../../shared/export';
import type { Db } from '../store/db';
import { importSweepBundle } from '../store/bundle-io';
import { readEntryText, type ImportFileEntry } from './files';

/** JSON text larger than this cannot become one string in V8. */
const MAX_BUNDLE_BYTES = 512 * 1024 * 1024 - 64;

export interface ImportedSweep {
  sweep_id: number;
  name: string;
  file: string;
  /** Set when this file's content was imported before: nothing was written. */
  duplicate_of_sweep: number | null;
}

/** Parses and checks a bundle file; ImportError names the file and what is wrong. */
export async function readBundle(f: ImportFileEntry): Promise<{ bundle: ExportBundle; hash: string }> {
  if (f.bytes > MAX_BUNDLE_BYTES) throw new ImportError(f.path, null, `a ${f.bytes}-byte JSON bundle is too large to read (limit ${MAX_BUNDLE_BYTES} bytes)`);
  const text = await readEntryText(f);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ImportError(f.path, null, `not valid JSON (${(e as Error).message}); a truncated export?`);
  }
  const schema = (raw as { schema?: unknown } | null)?.schema;
  if (schema !== EXPORT_SCHEMA) throw new ImportError(f.path, null, `not a CapLab export of schema ${EXPORT_SCHEMA} (schema: ${JSON.stringify(schema ?? null)})`);
  const parsed = ExportBundle.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ImportError(f.path, null, `bundle field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  if (parsed.data.kind !== 'sweep' || !parsed.data.sweep) throw new ImportError(f.path, null, `a ${parsed.data.kind} bundle: only sweep bundles (caplab export json SWEEP_ID) can be imported`);
  return { bundle: parsed.data, hash: createHash('sha256').update(text).digest('hex') };
}

/** Imports a bundle as a new sweep inside the caller's transaction (or its own); a known file is not imported again. */
export async function importBundleFile(db: Db, f: ImportFileEntry): Promise<ImportedSweep> {
  const { bundle, hash } = await readBundle(f);
  const dup = db.prepare("SELECT id FROM sweeps WHERE json_extract(environment, '$.imported_from.content_hash') = ?").get(hash) as { id: number } | undefined;
  if (dup) return { sweep_id: dup.id, name: bundle.sweep!.name, file: f.path, duplicate_of_sweep: dup.id };
  const id = importSweepBundle(db, { ...bundle, environment: { ...bundle.environment, imported_from: { file: f.path, content_hash: hash, exported_at: bundle.exported_at } } });
  return { sweep_id: id, name: bundle.sweep!.name, file: f.path, duplicate_of_sweep: null };
}
