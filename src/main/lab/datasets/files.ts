// Which files an import path names: a file, every file under a directory (sorted, hidden ones skipped), or every
// member of a zip archive (given, or found in a directory), each with its format (named, or detected from its first
// 64 KiB). Zip members are read by inflating them as streams; `path` of a member is `archive.zip/inner/path`.
import { createReadStream, closeSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { detectFormat, ImportError } from '../../../core/import';
import type { ImportFormat } from '../../../shared/dataset';
import { looksLikeZip, openZip, type ZipArchive } from './zip';

export interface ImportFileEntry {
  path: string;
  bytes: number;
  /** Null: no importer recognises it (in a directory such files are throughput logs or are ignored). */
  format: ImportFormat | null;
  /** A zip member: its inflated bytes as a stream (a plain file is read from `path`). */
  open?: () => Promise<AsyncIterable<Buffer>>;
}

export interface ImportFileList {
  files: ImportFileEntry[];
  /** Zip archives read, with their member counts (for the summary). */
  archives: { path: string; members: number }[];
  /** Closes the zip archives: call when the import is done. */
  close(): void;
}

/** How much of a file detection (and the import preview) reads. */
export const HEAD_BYTES = 64 * 1024;

function headBytes(path: string, bytes = HEAD_BYTES): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

export function readHead(path: string, bytes = HEAD_BYTES): string {
  return headBytes(path, bytes).toString('utf8');
}

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
}

/** The chunks of a file or zip member; a member that fails to inflate (corrupt, lying about its size) names itself. */
export async function* readChunks(f: ImportFileEntry, highWaterMark = 1 << 20): AsyncIterable<Buffer> {
  if (!f.open) {
    yield* createReadStream(f.path, { highWaterMark }) as AsyncIterable<Buffer>;
    return;
  }
  try {
    yield* await f.open();
  } catch (e) {
    throw e instanceof ImportError ? e : new ImportError(f.path, null, `cannot inflate: ${(e as Error).message}`);
  }
}

/** The first `bytes` of a file or zip member. */
export async function entryHead(f: ImportFileEntry, bytes = HEAD_BYTES): Promise<Buffer> {
  if (!f.open) return headBytes(f.path, bytes);
  const parts: Buffer[] = [];
  let n = 0;
  const stream = await f.open();
  for await (const c of stream) {
    parts.push(c);
    n += c.length;
    if (n >= bytes) break;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

/** A whole small file or zip member as UTF-8 text (throughput logs, metadata tables, JSON bundles). */
export async function readEntryText(f: ImportFileEntry): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of readChunks(f)) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

const isHidden = (member: string) => member.split('/').some((p) => p.startsWith('.') || p === '__MACOSX');

/** Expands paths to files and zip members; throws with the path when one does not exist or a zip is bad. */
export async function listImportFiles(paths: readonly string[], format: ImportFormat | 'auto'): Promise<ImportFileList> {
  const found: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`${p}: no such file or directory`);
    }
    if (st.isDirectory()) walk(p, found);
    else found.push(p);
  }
  const zips: ZipArchive[] = [];
  const list: ImportFileList = { files: [], archives: [], close: () => zips.forEach((z) => z.close()) };
  try {
    for (const path of found) {
      const bytes = statSync(path).size;
      if (bytes > 0 && looksLikeZip(basename(path), headBytes(path, 4))) {
        const zip = await openZip(path, bytes);
        zips.push(zip);
        const members = zip.members.filter((m) => !isHidden(m.name));
        list.archives.push({ path, members: members.length });
        for (const m of members) list.files.push({ path: join(path, ...m.name.split('/')), bytes: m.bytes, format: null, open: m.open });
      } else list.files.push({ path, bytes, format: null });
    }
    for (const f of list.files) {
      // A zip inside a zip is not opened: one level of archive is what log bundles use, and nesting is how bombs grow.
      if (f.open && /\.zip$/i.test(f.path)) continue;
      f.format = format !== 'auto' ? format : f.bytes === 0 ? null : detectFormat((await entryHead(f)).toString('utf8'), basename(f.path));
    }
    return list;
  } catch (e) {
    list.close();
    throw e;
  }
}
