// Writing a file so that readers never see half of it, and the error naming a file that cannot be written. Used by
// the exporters, the report writer and the CLI alike, so it belongs to none of them.
import { createWriteStream, type WriteStream } from 'node:fs';
import { access, constants, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { LabError, type ErrorCode } from '../../../shared/errors';

/** A file that cannot be written where asked: named, with the reason. */
export class ExportError extends LabError {
  constructor(message: string, code: ErrorCode = 'invalid') {
    super(code, message);
    this.name = 'ExportError';
  }
}

/** Checks that `file`'s folder exists and is writable, before any work is done. */
export async function checkWritable(file: string): Promise<string> {
  const path = resolve(file);
  const dir = dirname(path);
  try {
    if (!(await stat(dir)).isDirectory()) throw new ExportError(`cannot write ${path}: ${dir} is not a folder`);
    await access(dir, constants.W_OK);
  } catch (e) {
    if (e instanceof ExportError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new ExportError(`cannot write ${path}: ${code === 'ENOENT' ? `folder ${dir} does not exist` : code === 'EACCES' ? `folder ${dir} is not writable` : (e as Error).message}`);
  }
  try {
    if ((await stat(path)).isDirectory()) throw new ExportError(`cannot write ${path}: it is a folder`);
  } catch (e) {
    if (e instanceof ExportError) throw e;
  }
  return path;
}

const tempBeside = (path: string) => join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);

/** Writes the whole file to a temp file beside it, then renames: readers never see a half-written file. */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<number> {
  const path = await checkWritable(file);
  const tmp = tempBeside(path);
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw new ExportError(`cannot write ${path}: ${(e as Error).message}`);
  }
  return typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
}

/** A streamed file written to a temp name; commit() renames it into place, abort() removes it. */
export interface AtomicStream {
  path: string;
  stream: WriteStream;
  commit(): Promise<number>;
  abort(): Promise<void>;
}

export async function openAtomicStream(file: string): Promise<AtomicStream> {
  const path = await checkWritable(file);
  const tmp = tempBeside(path);
  const stream = createWriteStream(tmp, { highWaterMark: 1 << 20 });
  const closed = () => new Promise<void>((ok, fail) => (stream.closed ? ok() : stream.once('close', ok).once('error', fail)));
  return {
    path,
    stream,
    async commit() {
      await new Promise<void>((ok, fail) => stream.end((e?: Error | null) => (e ? fail(e) : ok())));
      await closed();
      await rename(tmp, path);
      return (await stat(path)).size;
    },
    async abort() {
      stream.destroy();
      await closed().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    },
  };
}
