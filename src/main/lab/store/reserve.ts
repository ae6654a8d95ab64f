import { closeSync, openSync, rmSync, writeSync } from 'node:fs';

const RESERVE_BYTES = 256 * 1024;

/**
 * Space held back beside a database while a sweep writes to it: a file of zeros, deleted when a write fails so
 * that the sweep can still record how it ended on a full disk. Null where it cannot be made (in-memory
 * database, a file-size limit): then the end is recorded if there is room.
 */
export function reserveSpace(dbFile: string): { release(): void } | null {
  if (!dbFile || dbFile === ':memory:') return null;
  const file = `${dbFile}-caplab-reserve`;
  try {
    const fd = openSync(file, 'w');
    try {
      writeSync(fd, Buffer.alloc(RESERVE_BYTES));
    } finally {
      closeSync(fd);
    }
  } catch {
    rmSync(file, { force: true });
    return null;
  }
  return { release: () => rmSync(file, { force: true }) };
}
