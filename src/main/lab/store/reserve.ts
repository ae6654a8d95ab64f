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
  // The sweep's share for its runs where the disk has it, else at least the record of the sweep itself.
  for (const bytes of [RESERVE_BYTES + RESERVE_PER_RUN * runs, RESERVE_BYTES]) {
    try {
      const fd = openSync(file, 'w');
      try {
        writeSync(fd, Buffer.alloc(bytes));
      } finally {
        closeSync(fd);
      }
      return { release: () => rmSync(file, { force: true }) };
    } catch {
      rmSync(file, { force: true });
    }
  }
  return null;
}
