// The NLR aggregated datasets on the import side: `<workload>/metadata.csv` beside `<workload>/results/NNNNNN.parquet`.
// Each results file is one profile without a wall clock; they are laid end to end on the dataset's time axis (each
// starting GAP_S after the previous one ends), one segment each, named by workload, file number and the parameters
// of the metadata.csv row that names that number (src/core/import/formats/nlr-metadata.ts). A metadata.csv without
// a column naming the results files, or without a row for one of them, fails the import naming it; a workload
// without metadata.csv is imported with a warning.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { formatModule, type ColumnBatch, type StructureSegment } from '../../../core/import';
import { metadataRowOf, parseNlrMetadata, type NlrMetadata } from '../../../core/import/formats/nlr-metadata';
import type { ImportDevice, ImportReport } from '../../../shared/dataset';
import { readChunks, readEntryText, type ImportFileEntry } from './files';
import { readParquetInWorker } from './parquet-thread';

const GAP_S = 10;

export interface NlrContext {
  files: Map<ImportFileEntry, { workload: string; label: string; warnings: string[] }>;
  /** Where the next profile starts on the time axis, s. */
  next_t0: number;
}

/** The workload directory of a results file: the parent of `results/`, else its own directory. */
function workloadDir(path: string): string {
  const d = dirname(path);
  return basename(d) === 'results' ? dirname(d) : d;
}

/** Labels of the Parquet profiles among the files, from the metadata.csv beside each workload's results. */
export async function nlrLayout(power: readonly ImportFileEntry[], all: readonly ImportFileEntry[]): Promise<NlrContext> {
  const ctx: NlrContext = { files: new Map(), next_t0: 0 };
  const tables = new Map<string, { meta: NlrMetadata; path: string } | null>();
  for (const f of power) {
    if (f.format === null || formatModule(f.format).reader.kind !== 'parquet-profiles') continue;
    const dir = workloadDir(f.path);
    if (!tables.has(dir)) {
      const meta = all.find((x) => x.path === join(dir, 'metadata.csv'));
      tables.set(dir, meta ? { meta: parseNlrMetadata(await readEntryText(meta), meta.path), path: meta.path } : null);
    }
    const stem = basename(f.path).replace(/\.parquet$/i, '');
    const workload = basename(dir);
    const table = tables.get(dir)!;
    const cells = table ? metadataRowOf(table.meta, stem, table.path).cells : [];
    const label = `${workload} ${stem}${cells.length ? ` (${cells.map(([k, v]) => `${k}=${v}`).join(', ')})` : ''}`.slice(0, 200);
    const warnings = table ? [] : [`no metadata.csv beside ${basename(dir)}/results: the profiles' segments carry no experiment parameters (node count, ...)`];
    ctx.files.set(f, { workload, label, warnings });
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
    for (const w of info.warnings) if (!r.report.warnings.includes(w)) r.report.warnings.push(w);
    return { ...r, hash: staged.hash };
  } finally {
    staged.cleanup();
  }
}
