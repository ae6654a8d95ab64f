// Streaming uploads for the browser host: a multi-GB log goes to a file in the upload folder as it arrives (never
// whole in memory), within a size limit; the page then imports it by path (importDataset {paths}), the same
// contract method the desktop app and the CLI use with files already on this machine. An upload lives only until
// its import ends (the dataset holds the samples, the file is a copy); leftovers of an upload never imported (a
// page closed in between, a host stopped mid-import) are removed once a day old.
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { LabError } from '../../shared/errors';

export const DEFAULT_MAX_UPLOAD_BYTES = 16 * 2 ** 30;
/** How much of a refused upload is still read (and dropped) so that the client sees the 413. */
const DRAIN_BYTES = 64 * 2 ** 20;

export interface Upload {
  path: string;
  bytes: number;
}

/** A safe file name from the client's: its base name, printable characters only, at most 120 of them. */
export function uploadName(raw: string): string {
  const base = basename(raw.replace(/\\/g, '/'))
    .replace(/[^\w.\-+@]/g, '_')
    .slice(-120);
  return base && base !== '.' && base !== '..' ? base : 'upload';
}

/**
 * Streams the request body to `<dir>/<random>-<name>`. Refuses (413, the partial file removed) a body announced or
 * found to be over `maxBytes`.
 */
export async function receiveUpload(req: IncomingMessage, dir: string, name: string, maxBytes: number): Promise<Upload> {
  const announced = Number(req.headers['content-length']);
  if (Number.isFinite(announced) && announced > maxBytes) throw new UploadTooLarge(maxBytes);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${randomBytes(6).toString('hex')}-${uploadName(name)}`);
  const out = createWriteStream(path, { flags: 'wx' });
  // A write that fails (disk full), or a buffered write landing after a refusal destroyed the stream, is an 'error'
  // event: kept here and thrown below, never an uncaught exception that would take the host down.
  let failed: Error | null = null;
  out.on('error', (e) => (failed ??= e));
  let bytes = 0;
  let tooLarge = false;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (tooLarge) {
        // Drained a while so that the client reads the 413 instead of a reset; then the connection is dropped.
        if (bytes > maxBytes + DRAIN_BYTES) break;
        continue;
      }
      if (bytes > maxBytes) {
        tooLarge = true;
        out.destroy();
        rmSync(path, { force: true });
        continue;
      }
      if (!out.write(chunk)) await drainedOrClosed(out);
      if (failed) throw failed;
    }
    if (tooLarge) throw new UploadTooLarge(maxBytes);
    if (failed) throw failed;
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    return { path, bytes };
  } catch (e) {
    out.destroy();
    rmSync(path, { force: true });
    throw e;
  }
}

/** Waits for room in the stream's buffer, or for its end (an error destroys it); neither listener outlives the wait. */
function drainedOrClosed(out: WriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const go = () => {
      out.off('drain', go).off('close', go);
      resolve();
    };
    out.on('drain', go).on('close', go);
  });
}

/** Uploads older than this that no import took are removed (at host start and hourly). */
export const STALE_UPLOAD_MS = 24 * 3600 * 1000;

/** The paths an importDataset call names that are files of the upload folder (they go once the import ends). */
export function uploadsNamed(dir: string, input: unknown): string[] {
  const paths = (input as { paths?: unknown } | null)?.paths;
  if (!Array.isArray(paths)) return [];
  const root = resolve(dir);
  return paths.filter((p): p is string => typeof p === 'string' && dirname(resolve(p)) === root);
}

/** The name the client gave an upload (its file name without the random prefix), for messages once it is gone. */
export function uploadedAs(path: string): string {
  return basename(path).replace(/^[0-9a-f]{12}-/, '');
}

export function removeUploads(paths: readonly string[]): void {
  for (const p of paths) rmSync(p, { force: true });
}

/** Removes the upload folder's files last written over `maxAgeMs` ago; returns how many. */
export function removeStaleUploads(dir: string, maxAgeMs = STALE_UPLOAD_MS, now = Date.now()): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const n of names) {
    const p = join(dir, n);
    try {
      const st = statSync(p);
      if (st.isFile() && now - st.mtimeMs > maxAgeMs) {
        rmSync(p, { force: true });
        removed++;
      }
    } catch {
      // Gone meanwhile (its import ended): nothing to do.
    }
  }
  return removed;
}

export class UploadTooLarge extends LabError {
  constructor(readonly maxBytes: number) {
    super('invalid', `upload is over ${maxBytes} bytes (the host's limit, CAPLAB_MAX_UPLOAD_BYTES)`);
    this.name = 'UploadTooLarge';
  }
}
