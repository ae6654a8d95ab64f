// `caplab import FILE.json` of CapLab's own JSON export (caplab.export/1, src/shared/export.ts): a sweep bundle
// becomes a sweep again (runs, devices, every sample and metric, bit for bit), a dataset bundle a dataset again
// (devices with their kinds, samples, metrics, segments, import report), so the same analysis comes out.
// The bundle is one JSON document and is parsed whole (export writes it whole too); its SHA-256 is kept (a sweep's
// environment, a dataset's source file) so the same file imported twice is found, not duplicated.
import { createHash } from 'node:crypto';
import { ImportError } from '../../../core/import';
import { EXPORT_SCHEMA, ExportBundle } from '../../../shared/export';
import type { Db } from '../store/db';
import { importDatasetBundle, importSweepBundle } from '../store/bundle-io';
import { datasetWithFile } from '../store/dataset-records';
import { sweepImportedFrom } from '../store/sweeps';
import { CodecError } from '../store/block-codec';
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
  const b = parsed.data;
  if (b.kind === 'sweep' ? !b.sweep : !b.dataset) throw new ImportError(f.path, null, `a ${b.kind} bundle without its ${b.kind} record (field ${b.kind} is null)`);
  return { bundle: parsed.data, hash: createHash('sha256').update(text).digest('hex') };
}

export interface ImportedDataset {
  dataset_id: number;
  name: string;
  file: string;
  /** Set when this file's content was imported before: nothing was written. */
  duplicate_of_dataset: number | null;
}

/** Imports a bundle as a new sweep or dataset inside the caller's transaction; a known file is not imported again. */
export async function importBundleFile(db: Db, f: ImportFileEntry): Promise<{ kind: 'sweep'; sweep: ImportedSweep } | { kind: 'dataset'; dataset: ImportedDataset }> {
  const { bundle, hash } = await readBundle(f);
  try {
    if (bundle.kind === 'dataset') {
      const name = bundle.dataset!.name;
      const dup = datasetWithFile(db, hash);
      if (dup) return { kind: 'dataset', dataset: { dataset_id: dup.id, name: dup.name, file: f.path, duplicate_of_dataset: dup.id } };
      const id = importDatasetBundle(db, bundle, { path: f.path, bytes: f.bytes, content_hash: hash });
      return { kind: 'dataset', dataset: { dataset_id: id, name, file: f.path, duplicate_of_dataset: null } };
    }
    const dup = sweepImportedFrom(db, hash);
    if (dup) return { kind: 'sweep', sweep: { sweep_id: dup.id, name: bundle.sweep!.name, file: f.path, duplicate_of_sweep: dup.id } };
    const id = importSweepBundle(db, { ...bundle, environment: { ...bundle.environment, imported_from: { file: f.path, content_hash: hash, exported_at: bundle.exported_at } } });
    return { kind: 'sweep', sweep: { sweep_id: id, name: bundle.sweep!.name, file: f.path, duplicate_of_sweep: null } };
  } catch (e) {
    // A value the sample store cannot hold (a time of 1e308: found by the fuzz suite); parts that do not fit
    // together (samples of a device the bundle does not list, a run that is not there).
    if (e instanceof CodecError) throw new ImportError(f.path, null, `a sample the store cannot hold: ${e.message}`);
    if (isBundleMismatch(e)) throw new ImportError(f.path, null, `the bundle's parts do not fit together: ${(e as Error).message}`);
    throw e;
  }
}

/** A plain Error of the bundle writers or a SQLite constraint failure; not a disk or I/O failure. */
function isBundleMismatch(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return e.constructor === Error || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'));
}
