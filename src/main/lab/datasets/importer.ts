// `caplab import` and the app's import: files (or directory trees) -> one dataset, in one transaction.
// Streaming: each file is read in 1 MiB chunks, parsed to columnar batches and stored as it goes (large files are
// parsed on a worker thread meanwhile); the content hash is computed on the way, and a file already imported makes
// the whole import roll back as a duplicate.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, relative, sep } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createParser, formatModule, ImportError, MAX_SKIP_EXAMPLES, noSampleReason, reorderWarning, type ColumnBatch, type StreamParser, type StructureSegment } from '../../../core/import';
import { detectAdapter } from '../../../core/adapters';
import { Binner, detectPhases, type Phase } from '../../../core/segments';
import { PhaseTrace, phaseLevelWords } from './phase-trace';
import { energyKindOf, ImportFormat, type DatasetRecord, type ImportDevice, type ImportReport, type SegmentInput } from '../../../shared/dataset';
import type { Db } from '../store/db';
import { createDataset } from '../store/datasets';
import { datasetDeviceKinds, datasetFileHashes, datasetRecord, datasetSpan, datasetWithFile, finishDataset, insertDatasetDevice, insertDatasetFile, insertSegment } from '../store/dataset-records';
import { beginImmediate, commit, releaseSavepoint, rollback, rollbackIfOpen, rollbackToSavepoint, savepoint } from '../store/transaction';
import { forEachInWindow, streamsOf } from '../store/sample-blocks';
import { listImportFiles, readChunks, readEntryText, type ImportFileEntry } from './files';
import { DatasetSampleSink } from './sample-sink';
import { importBundleFile, type ImportedDataset, type ImportedSweep } from './bundle-import';
import { nlrLayout, parseNlrParquet } from './nlr-parquet';
import { CHUNK_BYTES, pushDecoded, textEncodingOf } from './parse-protocol';
import { parseInShards, parseInWorker } from './parse-thread';

export interface ImportOptions {
  format: ImportFormat | 'auto';
  zone: string;
  name?: string;
  fields?: string[];
  interval_s?: number;
  onProgress?: (p: ImportProgress) => void;
  /**
   * Where files are parsed: 'auto' puts large files on a worker thread (storing goes on meanwhile), or on two
   * ('shards', alternate chunks) where the format's rows stand alone and there are three cores or more.
   */
  parse_thread?: 'auto' | 'worker' | 'inline' | 'shards';
  /** Chunk size of a sharded parse (SHARD_CHUNK_BYTES; tests make it small to cross many chunk edges). */
  shard_bytes?: number;
  /** What the dataset's record calls a path (a staged or uploaded temp file as the file the user chose); else the path. */
  shownAs?: (path: string) => string;
}

export interface ImportProgress {
  file: string;
  files_done: number;
  files_total: number;
  bytes_done: number;
  bytes_total: number;
  samples: number;
}

export interface ImportOutcome {
  dataset: DatasetRecord | null;
  /** Set when the content was already imported: nothing was written. */
  duplicate_of: { dataset_id: number; name: string; path: string } | null;
  reports: ImportReport[];
  /** Files in the tree no importer reads (throughput logs are read beside power logs). */
  ignored: string[];
  /** CapLab JSON exports among the inputs: each became a sweep again (or was found imported before). */
  sweeps: ImportedSweep[];
  /** CapLab JSON exports of datasets among the inputs: each became a dataset again (or was found imported before). */
  datasets: ImportedDataset[];
  /** Zip archives among the inputs, with the members each held. */
  archives: { path: string; members: number }[];
}

/** A per-cap directory of hpc-ai-perf-bench result trees: `300Watts`, `300W`, `cap_300`. */
const CAP_DIR = /^(?:cap[_-]?)?(\d{2,4})\s*(?:w|watts?)?$/i;

function capOf(path: string, root: string): { cap_w: number; dir: string } | null {
  const parts = relative(root, dirname(path)).split(sep).filter(Boolean);
  for (let i = parts.length - 1; i >= 0; i--) {
    const m = CAP_DIR.exec(parts[i]!);
    if (m && /w|cap/i.test(parts[i]!)) return { cap_w: Number(m[1]), dir: parts.slice(0, i + 1).join(sep) };
  }
  return null;
}

function rootOf(paths: readonly string[]): string {
  return paths.length === 1 ? paths[0]! : dirname(paths[0]!);
}

/** The first line of a file that can be parsed in chunks on two threads (parseInShards), else null. */
function shardHeader(f: ImportFileEntry & { format: ImportFormat }): string | null {
  const reader = formatModule(f.format).reader;
  if (reader.kind !== 'stream' || !reader.chunks) return null;
  const buf = Buffer.alloc(1 << 16);
  const fd = openSync(f.path, 'r');
  let n: number;
  try {
    n = readSync(fd, buf, 0, buf.length, 0);
  } finally {
    closeSync(fd);
  }
  const nl = buf.subarray(0, n).indexOf(10);
  if (nl === -1) return null;
  const line = buf.subarray(0, nl).toString('latin1');
  return reader.chunks.header(line) ? line : null;
}

/** Files from this size up are parsed on a worker thread while this thread stores (smaller ones: the start-up costs more). */
const WORKER_MIN_BYTES = 32 * 2 ** 20;

async function parseFile(
  f: ImportFileEntry & { format: ImportFormat },
  opts: ImportOptions,
  onBatch: (batch: ColumnBatch, devices: readonly ImportDevice[]) => void,
  onBytes: (n: number) => void,
): Promise<{ report: ImportReport; segments: StructureSegment[]; hash: string }> {
  const hash = createHash('sha256');
  const thread = opts.parse_thread ?? 'auto';
  const handlers = {
    onBatch,
    onChunk: (bytes: Uint8Array) => {
      hash.update(bytes);
      onBytes(bytes.length);
    },
  };
  // Parse threads read files by path; a zip member is inflated here and parsed on this thread.
  // Two parse threads beside this one pay off from three cores: on two, their extra CPU (a parser per chunk, a
  // second isolate's garbage collection) costs more than the balance gains (bench/results/import.md).
  const header = !f.open && (thread === 'shards' || (thread === 'auto' && f.bytes >= WORKER_MIN_BYTES && availableParallelism() >= 3)) ? shardHeader(f) : null;
  if (header !== null) {
    const { report, segments } = await parseInShards(f, { ...opts, header, chunkBytes: opts.shard_bytes }, handlers);
    return { report, segments, hash: hash.digest('hex') };
  }
  if (!f.open && (thread === 'worker' || thread === 'shards' || (thread === 'auto' && f.bytes >= WORKER_MIN_BYTES))) {
    const { report, segments } = await parseInWorker(f, opts, handlers);
    return { report, segments, hash: hash.digest('hex') };
  }
  const parser: StreamParser = createParser(f.format, {
    file: f.path,
    zone: opts.zone,
    emit: (b) => onBatch(b, parser.report.devices),
    fields: opts.fields,
    interval_s: opts.interval_s,
  });
  const push = (text: string) => parser.push(text);
  const decoder = new StringDecoder(textEncodingOf(f.format));
  for await (const buf of readChunks(f, CHUNK_BYTES)) {
    hash.update(buf);
    pushDecoded(decoder, buf, push);
    onBytes(buf.length);
  }
  parser.push(decoder.end());
  const { report, segments } = parser.end();
  return { report, segments, hash: hash.digest('hex') };
}

/** Throughput of a per-cap directory from the logs beside the power logs, read with the throughput adapters. */
async function throughputOf(files: readonly ImportFileEntry[]): Promise<{ units: string; count: number | null; rate: number; file: string } | null> {
  for (const f of files) {
    if (f.format !== null || f.bytes > 64 * 1024 * 1024) continue;
    const text = await readEntryText(f);
    const a = detectAdapter(text);
    if (!a) continue;
    try {
      const r = a.read(text, { file: f.path });
      return { units: r.units, count: r.count, rate: r.rate, file: f.path };
    } catch {
      continue;
    }
  }
  return null;
}

/**
 * Imports paths as one dataset. Throws ImportError (file and line) on a file that cannot be read; nothing is
 * written then. A duplicate (every file's content already in a dataset) is reported, not imported again.
 */
export async function importPaths(db: Db, paths: readonly string[], opts: ImportOptions): Promise<ImportOutcome> {
  if (paths.length === 0) throw new Error('nothing to import: give one or more files or directories');
  const list = await listImportFiles(paths, opts.format);
  try {
    return await importFiles(db, paths, list.files, list.archives, opts);
  } finally {
    list.close();
  }
}

async function importFiles(db: Db, paths: readonly string[], all: ImportFileEntry[], archives: ImportOutcome['archives'], opts: ImportOptions): Promise<ImportOutcome> {
  const readerOf = (f: ImportFileEntry) => (f.format === null ? null : formatModule(f.format).reader.kind);
  const bundles = all.filter((f) => readerOf(f) === 'sweep-bundle');
  const power = all.filter((f): f is ImportFileEntry & { format: ImportFormat } => f.format !== null && readerOf(f) !== 'sweep-bundle');
  if (power.length === 0 && bundles.length === 0) {
    const empty = all.find((f) => f.bytes === 0);
    if (empty) throw new ImportError(empty.path, null, 'empty file');
    if (all.length === 0) throw new ImportError(paths[0]!, null, 'no files to import (an empty directory or archive)');
    throw new ImportError(all[0]!.path, null, `no importer recognises ${all.length === 1 ? 'this file' : 'any of these files'}; name the format with --format (${ImportFormat.options.join(', ')})`, 'format');
  }
  const root = rootOf(paths);
  const bytesTotal = [...bundles, ...power].reduce((s, f) => s + f.bytes, 0);
  const formats = [...new Set(power.map((f) => f.format))];
  const shown = opts.shownAs ?? ((p: string) => p);
  const name = opts.name ?? basename(shown(root).replace(/[/\\]+$/, ''));
  const progress: ImportProgress = { file: '', files_done: 0, files_total: bundles.length + power.length, bytes_done: 0, bytes_total: bytesTotal, samples: 0 };

  const nlr = await nlrLayout(power, all);
  beginImmediate(db);
  try {
    // CapLab's own exports become sweeps again, in the same transaction as the rest.
    const sweeps: ImportedSweep[] = [];
    const datasets: ImportedDataset[] = [];
    for (const f of bundles) {
      progress.file = f.path;
      const b = await importBundleFile(db, f);
      if (b.kind === 'sweep') sweeps.push(b.sweep);
      else datasets.push(b.dataset);
      progress.bytes_done += f.bytes;
      progress.files_done++;
    }
    if (power.length === 0) {
      commit(db);
      opts.onProgress?.({ ...progress, files_done: progress.files_total, bytes_done: bytesTotal });
      // One dataset export alone is reported as the dataset this import made (or found).
      const only = datasets.length === 1 ? datasets[0]! : null;
      const dup = only && only.duplicate_of_dataset !== null ? { dataset_id: only.dataset_id, name: only.name, path: only.file } : null;
      const made = only && !dup ? (datasetRecord(db, only.dataset_id) ?? null) : null;
      return { dataset: made, duplicate_of: dup, reports: made?.report ? [made.report] : [], ignored: all.filter((x) => x.format === null).map((x) => x.path), sweeps, datasets, archives };
    }
    const datasetId = createDataset(db, { name, format: formats.join('+'), timezone: opts.zone, source: paths.map(shown).join('\n') });
    const sink = new DatasetSampleSink(db, datasetId);
    const deviceRows = new Map<string, number>();
    const reports: ImportReport[] = [];
    const skippedReports = new Set<number>();
    const structure: SegmentInput[] = [];
    // The load phases' trace, binned as the samples stream past (a file's part joins once the file is kept).
    const trace = new PhaseTrace();
    let duplicate: ImportOutcome['duplicate_of'] = null;
    let imported = 0;
    let lastTick = 0;
    for (const f of power) {
      progress.file = f.path;
      // A file's samples are written under a savepoint: if its content turns out to be imported already, they go.
      savepoint(db, 'file');
      const rowsOf: number[] = [];
      const added: string[] = [];
      const fileTrace = new PhaseTrace();
      const parse = readerOf(f) === 'parquet-profiles' ? (...a: Parameters<typeof parseFile>) => parseNlrParquet(nlr, ...a) : parseFile;
      const parsed = await parse(
        f,
        opts,
        (batch, devices) => {
          for (let i = rowsOf.length; i < devices.length; i++) {
            const d = devices[i]!;
            let row = deviceRows.get(d.key);
            if (row === undefined) {
              row = insertDatasetDevice(db, datasetId, f.format, d, deviceRows.size);
              deviceRows.set(d.key, row);
              added.push(d.key);
            }
            rowsOf.push(row);
          }
          sink.write(batch, rowsOf);
          fileTrace.add(batch, devices);
          progress.samples = sink.samples;
        },
        (n) => {
          progress.bytes_done += n;
          const now = performance.now();
          if (opts.onProgress && now - lastTick > 200) {
            lastTick = now;
            opts.onProgress({ ...progress });
          }
        },
      );
      sink.close();
      if (parsed.report.rows_read === 0) throw new ImportError(f.path, null, noSampleReason(parsed.report));
      const reordered = reorderWarning(parsed.report);
      if (reordered !== null && !parsed.report.warnings.includes(reordered)) parsed.report.warnings.push(reordered);
      reports.push(parsed.report);
      progress.files_done++;
      const dup = datasetWithFile(db, parsed.hash);
      if (dup) {
        rollbackToSavepoint(db, 'file');
        // The devices this file added went with it: a later file naming the same device adds it again.
        for (const k of added) deviceRows.delete(k);
        skippedReports.add(reports.length - 1);
        sink.forgetStreams();
        releaseSavepoint(db, 'file');
        sink.samples -= parsed.report.rows_read;
        duplicate ??= { dataset_id: dup.id, name: dup.name, path: dup.path };
        continue;
      }
      releaseSavepoint(db, 'file');
      trace.merge(fileTrace);
      imported++;
      insertDatasetFile(db, datasetId, { path: shown(f.path), format: f.format, bytes: f.bytes, content_hash: parsed.hash });
      const cap = capOf(f.path, root);
      for (const s of parsed.segments)
        structure.push({ label: s.name, origin: 'structure', start: s.start, end: s.end, cap_w: s.cap_w ?? cap?.cap_w ?? null, workload: s.workload ?? null });
      if (cap && parsed.report.t_start !== null && parsed.report.t_end !== null) {
        const tp = await throughputOf(all.filter((x) => x.format === null && dirname(x.path) === dirname(f.path)));
        // The run under the cap is the loaded part of its log: the phases above the midpoint of idle and load.
        const phases = phasesOf(db, datasetId, parsed.report.t_start, parsed.report.t_end, 2);
        const lo = Math.min(...phases.map((p) => p.mean));
        const hi = Math.max(...phases.map((p) => p.mean));
        const loaded = phases.filter((p) => p.mean >= (lo + hi) / 2);
        const span = loaded.length && hi > lo * 1.2 ? { start: loaded[0]!.start, end: loaded[loaded.length - 1]!.end } : { start: parsed.report.t_start, end: parsed.report.t_end };
        const dur = span.end - span.start;
        const parts = cap.dir.split(sep);
        structure.push({
          label: cap.dir,
          origin: 'structure',
          start: span.start,
          end: span.end,
          cap_w: cap.cap_w,
          workload: parts.length > 1 ? parts[parts.length - 2]! : null,
          units: tp?.units ?? null,
          units_in_window: tp ? tp.rate * dur : null,
        });
      }
    }
    if (imported === 0) {
      rollback(db);
      return { dataset: null, duplicate_of: duplicate, reports, ignored: [], sweeps, datasets, archives };
    }
    // The dataset's report covers the files it holds (not those skipped as already imported).
    const merged = mergeReports(reports.filter((_, i) => !skippedReports.has(i)));
    const fileHashes = datasetFileHashes(db, datasetId);
    const contentHash = fileHashes.length === 1 ? fileHashes[0]! : createHash('sha256').update(fileHashes.join('\n')).digest('hex');
    finishDataset(db, datasetId, { report: merged, samples: sink.samples, content_hash: contentHash });
    for (const s of structure) insertSegment(db, datasetId, s);
    if (structure.length === 0) for (const s of autoSegments(db, datasetId, trace)) insertSegment(db, datasetId, s);
    commit(db);
    opts.onProgress?.({ ...progress, bytes_done: bytesTotal });
    return {
      dataset: datasetRecord(db, datasetId) ?? null,
      duplicate_of: duplicate,
      reports,
      ignored: all.filter((x) => x.format === null).map((x) => x.path),
      sweeps,
      datasets,
      archives,
    };
  } catch (e) {
    rollbackIfOpen(db);
    throw e;
  }
}

/** One report for a dataset of several files: counts summed, devices and columns merged, warnings kept. */
export function mergeReports(reports: readonly ImportReport[]): ImportReport {
  const out: ImportReport = { ...reports[0]!, files: [], skipped: [], devices: [], columns: [], warnings: [], rows_read: 0, rows_skipped: 0, reordered: { count: 0, lines: [] } };
  for (const r of reports) {
    out.files.push(...r.files);
    out.rows_read += r.rows_read;
    out.rows_skipped += r.rows_skipped;
    for (const s of r.skipped) out.skipped.push({ ...s, reason: reports.length > 1 ? `${r.files[0]}: ${s.reason}` : s.reason });
    for (const d of r.devices) {
      const o = out.devices.find((x) => x.key === d.key);
      if (o) {
        o.rows += d.rows;
        o.max_gap_s = Math.max(o.max_gap_s, d.max_gap_s);
      } else out.devices.push({ ...d });
    }
    for (const c of r.columns) if (!out.columns.some((x) => x.source === c.source)) out.columns.push(c);
    for (const w of r.warnings) if (!out.warnings.includes(w)) out.warnings.push(w);
    out.reordered.count += r.reordered.count;
    for (const line of r.reordered.lines) if (out.reordered.lines.length < MAX_SKIP_EXAMPLES) out.reordered.lines.push(line);
    if (r.t_start !== null) out.t_start = out.t_start === null ? r.t_start : Math.min(out.t_start, r.t_start);
    if (r.t_end !== null) out.t_end = out.t_end === null ? r.t_end : Math.max(out.t_end, r.t_end);
  }
  out.format = [...new Set(reports.map((r) => r.format))].join('+');
  return out;
}

/** The devices a dataset's phases and energy are taken from (GPUs, else node-level power) and their streams. */
function energyStreams(db: Db, datasetId: number): { kind: ReturnType<typeof energyKindOf>; streams: ReturnType<typeof streamsOf> } {
  const rows = datasetDeviceKinds(db, datasetId);
  const kind = energyKindOf(rows.map((r) => r.kind));
  const gpuRows = new Set(rows.filter((r) => r.kind === kind).map((r) => r.id));
  return { kind, streams: streamsOf(db, { dataset_id: datasetId }).filter((s) => gpuRows.has(s.device_row)) };
}

/** Load phases of a dataset's summed GPU (else node-level) power (utilisation where there is no power) within a range, read from the store. */
function phasesOf(db: Db, datasetId: number, from: number, to: number, min_s = 8): (Phase & { unit: string })[] {
  if (!(to > from)) return [];
  const { streams } = energyStreams(db, datasetId);
  // Summed GPU power per bin (mean per device, so a bin is not biased by how many GPUs reported in it); utilisation,
  // read only where no GPU logged power. Read in slices so a large window never sits in memory.
  const binned = (field: 'power_w' | 'util_gpu', scale: number) => {
    const bins = new Binner(from, to, 4000);
    const slices = 64;
    const step = (to - from) / slices;
    for (const s of streams)
      for (let k = 0; k < slices; k++) {
        const a = from + k * step;
        forEachInWindow(db, s.stream_id, a, k === slices - 1 ? to : a + step - 1e-9, field, (t, v) => bins.add(t, v * scale));
      }
    return bins.result();
  };
  const p = binned('power_w', streams.length);
  const usePower = p.v.length > 0;
  const b = usePower ? p : binned('util_gpu', 1);
  return detectPhases(b.t, b.v, b.width, { min_s }).map((ph) => ({ ...ph, unit: usePower ? 'W' : '%' }));
}

/** Load phases of a whole dataset as segments, from the trace binned while it was imported. */
function autoSegments(db: Db, datasetId: number, trace: PhaseTrace): SegmentInput[] {
  const span = datasetSpan(db, datasetId);
  if (!span || span.t_start === null || span.t_end === null || !(span.t_end > span.t_start)) return [];
  const { kind, streams } = energyStreams(db, datasetId);
  return trace.phases(kind, streams.length, { start: span.t_start, end: span.t_end }).map((ph, i) => ({
    label: `phase ${i + 1} (${phaseLevelWords(ph, kind)})`,
    origin: 'auto' as const,
    start: ph.start,
    end: ph.end,
  }));
}
