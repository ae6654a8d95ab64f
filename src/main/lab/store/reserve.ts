import { closeSync, openSync, rmSync, writeSync } from 'node:fs';

const RESERVE_BYTES = 256 * 1024;
/** The end record rewrites each open run's row (cancelled): room for that too, in WAL pages. */
const RESERVE_PER_RUN = 256;

/**
 * Space held back beside a database while a sweep writes to it: a file of zeros, deleted just before the sweep
 * records how it ended, so that the record fits on a full disk. Null where it cannot be made (in-memory
 * database, a file-size limit): then the end is recorded if there is room.
 */
export function reserveSpace(dbFile: string, runs = 0): { release(): void } | null {
  if (!dbFile || dbFile === ':memory:') return null;
  const file = `${dbFile}-caplab-reserve`;
  try {
    const fd = openSync(file, 'w');
    try {
      writeSync(fd, Buffer.alloc(RESERVE_BYTES + RESERVE_PER_RUN * runs));
    } finally {
      closeSync(fd);
    }
  } catch {
    rmSync(file, { force: true });
    return null;
  }
  return { release: () => rmSync(file, { force: true }) };
}
