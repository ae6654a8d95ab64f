// Streaming uploads for the browser host: a multi-GB log goes to a file in the upload folder as it arrives (never
// whole in memory), within a size limit; the page then imports it by path (importDataset {paths}), the same
// contract method the desktop app and the CLI use with files already on this machine.
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
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
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
    }
    if (tooLarge) throw new UploadTooLarge(maxBytes);
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    return { path, bytes };
  } catch (e) {
    out.destroy();
    rmSync(path, { force: true });
    throw e;
  }
}

export class UploadTooLarge extends LabError {
  constructor(readonly maxBytes: number) {
    super('invalid', `upload is over ${maxBytes} bytes (the host's limit, CAPLAB_MAX_UPLOAD_BYTES)`);
    this.name = 'UploadTooLarge';
  }
}
