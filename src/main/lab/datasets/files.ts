// Which files an import path names: a file, or every file under a directory (sorted, hidden ones skipped),
// each with its format (named, or detected from its first 64 KiB).
import { closeSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { detectFormat } from '../../../core/import';
import type { ImportFormat } from '../../../shared/dataset';

export interface ImportFileEntry {
  path: string;
  bytes: number;
  /** Null: no importer recognises it (in a directory such files are throughput logs or are ignored). */
  format: ImportFormat | null;
}

const HEAD_BYTES = 64 * 1024;

export function readHead(path: string, bytes = HEAD_BYTES): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
}

/** Expands paths to files; throws with the path when one does not exist. */
export function listImportFiles(paths: readonly string[], format: ImportFormat | 'auto'): ImportFileEntry[] {
  const files: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`${p}: no such file or directory`);
    }
    if (st.isDirectory()) walk(p, files);
    else files.push(p);
  }
  return files.map((path) => {
    const bytes = statSync(path).size;
    const fmt = format !== 'auto' ? format : bytes === 0 ? null : detectFormat(readHead(path), basename(path));
    return { path, bytes, format: fmt };
  });
}
