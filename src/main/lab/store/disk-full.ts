// A full disk under the database is the machine's state, not a bug and not bad input: it is told as such, naming
// the database and the space left, whichever command meets it (a sweep's write, a read-only open).
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { LabError } from '../../../shared/errors';

/**
 * Under this much free space an SQLite I/O error is taken for a full disk: SQLite reports a `-shm` file it cannot
 * create or grow (a read-only open of a WAL database needs one) as "disk I/O error", not SQLITE_FULL.
 */
const NEARLY_FULL_BYTES = 1024 * 1024;

/** The database's disk is full: code 'unavailable' (exit 4, HTTP 503). */
export class DiskFullError extends LabError {
  constructor(
    readonly file: string,
    readonly freeBytes: number | null,
    cause: string,
  ) {
    const free = freeBytes === null ? '' : `${Math.floor(freeBytes / 1024)} KiB free; `;
    super('unavailable', `the disk holding ${file} is full (${free}${cause}): free some space and try again`);
    this.name = 'DiskFullError';
  }
}

/** Bytes an unprivileged writer may still use on the filesystem of `file`'s folder; null when unknown. */
export function freeBytesNear(file: string): number | null {
  try {
    const s = statfsSync(dirname(file));
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** SQLite's "database or disk is full", or a write's ENOSPC / EDQUOT. */
export function isDiskFullError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === 'EDQUOT');
}

/** The DiskFullError that `e`, met using the database `file`, really is; null when it is something else. */
export function diskFullOf(e: unknown, file: string): DiskFullError | null {
  if (e instanceof DiskFullError) return e;
  if (!file || file === ':memory:') return null;
  const code = (e as { code?: unknown } | null)?.code;
  const message = (e as Error | null)?.message ?? String(e);
  if (isDiskFullError(e)) return new DiskFullError(file, freeBytesNear(file), message);
  const ioError = typeof code === 'string' && (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN'));
  if (!ioError) return null;
  const free = freeBytesNear(file);
  return free !== null && free < NEARLY_FULL_BYTES ? new DiskFullError(file, free, message) : null;
}
