// The NLR aggregated datasets on the import side: `<workload>/metadata.csv` beside `<workload>/results/NNNNNN.parquet`.
// Each results file is one profile without a wall clock; they are laid end to end on the dataset's time axis (each
// starting GAP_S after the previous one ends), one segment each, named by workload, file number and the cells of the
// metadata.csv row that names that number. The metadata columns are not relied on by name: any cell equal to the
// file's number (with or without leading zeros) picks the row, and the row's cells are kept as text.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { type ColumnBatch, type StructureSegment } from '../../../core/import';
import { splitFields } from '../../../core/import/scan';
import type { ImportDevice, ImportReport } from '../../../shared/dataset';
import { readChunks, readEntryText, type ImportFileEntry } from './files';
import { readParquetInWorker } from './parquet-thread';

const GAP_S = 10;

export interface NlrContext {
  files: Map<ImportFileEntry, { workload: string; label: string }>;
  /** Where the next profile starts on the time axis, s. */
  next_t0: number;
}

/** The workload directory of a results file: the parent of `results/`, else its own directory. */
function workloadDir(path: string): string {
  const d = dirname(path);
  return basename(d) === 'results' ? dirname(d) : d;
}

/** Rows of a metadata.csv as header -> cell records. */
function metadataRows(text: string): Record<string, string>[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  const names = splitFields(lines[0]!, ',').map((n) => n.trim());
  return lines.slice(1).map((l) => Object.fromEntries(splitFields(l, ',').map((v, i) => [names[i] ?? `column ${i + 1}`, v.trim()])));
}

/** Labels of the Parquet profiles among the files, from the metadata.csv beside each workload's results. */
export async function nlrLayout(power: readonly ImportFileEntry[], all: readonly ImportFileEntry[]): Promise<NlrContext> {
  const ctx: NlrContext = { files: new Map(), next_t0: 0 };
  const tables = new Map<string, Record<string, string>[]>();
  for (const f of power) {
    if (f.format !== 'nlr-parquet') continue;
    const dir = workloadDir(f.path);
    if (!tables.has(dir)) {
      const meta = all.find((x) => x.path === join(dir, 'metadata.csv'));
      tables.set(dir, meta ? metadataRows(await readEntryText(meta)) : []);
    }
    const stem = basename(f.path).replace(/\.parquet$/i, '');
    const names = (v: string) => v === stem || (/^\d+$/.test(v) && /^\d+$/.test(stem) && Number(v) === Number(stem));
    const row = tables.get(dir)!.find((r) => Object.values(r).some(names));
    const workload = basename(dir);
    // The row's cells but the one that named the file.
    const entries = row ? Object.entries(row) : [];
    const idCell = entries.findIndex(([, v]) => names(v));
    const cells = entries.filter((_, i) => i !== idCell);
    const label = `${workload} ${stem}${cells.length ? ` (${cells.map(([k, v]) => `${k}=${v}`).join(', ')})` : ''}`.slice(0, 200);
    ctx.files.set(f, { workload, label });
  }
  return ctx;
}

/** Hashes a file or zip member; a member is staged to a private temp file (Parquet needs random access). */
async function stage(f: ImportFileEntry): Promise<{ path: string; hash: string; cleanup: () => void }> {
  const hash = createHash('sha256');
  if (!f.open) {
    for await (const c of readChunks(f)) hash.update(c);
    return { path: f.path, hash: hash.digest('hex'), cleanup: () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'caplab-parquet-'));
  const path = join(dir, 'member.parquet');
  const out = createWriteStream(path);
  try {
    for await (const c of readChunks(f)) {
      hash.update(c);
      if (!out.write(c)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
  } catch (e) {
    out.destroy();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { path, hash: hash.digest('hex'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Reads one results file into batches on the Parquet thread (same contract as the text importers' parseFile). */
export async function parseNlrParquet(
  ctx: NlrContext,
  f: ImportFileEntry,
  _opts: unknown,
  onBatch: (batch: ColumnBatch, devices: readonly ImportDevice[]) => void,
  onBytes: (n: number) => void,
): Promise<{ report: ImportReport; segments: StructureSegment[]; hash: string }> {
  const info = ctx.files.get(f)!;
  const staged = await stage(f);
  try {
    let done = 0;
    const r = await readParquetInWorker(
      { path: staged.path, file: f.path, workload: info.workload, label: info.label, t0: ctx.next_t0 },
      {
        onBatch: (b, report) => onBatch(b, report.devices),
        onFraction: (x) => {
          const now = Math.round(x * f.bytes);
          onBytes(now - done);
          done = now;
        },
      },
    );
    ctx.next_t0 = r.report.t_end! + GAP_S;
    return { ...r, hash: staged.hash };
  } finally {
    staged.cleanup();
  }
}
