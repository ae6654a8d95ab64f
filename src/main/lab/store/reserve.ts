import { rmSync, statSync } from 'node:fs';
import type { Db } from './connection';
import { freeBytesNear } from './disk-full';

const RESERVE_BYTES = 256 * 1024;
/** The end record rewrites each open run's row (cancelled): room for that too, in WAL pages. */
const RESERVE_PER_RUN = 256;
/**
 * wal_autocheckpoint while a reserve is held (SQLite's default: 1000 pages): between checkpoints the WAL holds at
 * most this many pages plus the last transaction's, and the reserve is the room after them.
 */
const CHECKPOINT_PAGES = 32;
/** Pages a flush of samples (or another small write of a sweep's) may add; a flush measured 2-9 (sim, 60x). */
const FLUSH_PAGES = 16;
/** A WAL frame's header (https://www.sqlite.org/fileformat2.html#walformat), and the WAL file's. */
const FRAME_HEADER = 24;
const WAL_HEADER = 32;

/** Where CapLab before the WAL reserve kept it: a file of zeros beside the database, deleted just before the end. */
export function staleReserveFile(dbFile: string): string {
  return `${dbFile}-caplab-reserve`;
}

export interface SpaceReserve {
  /**
   * After each write of the sweep: on a disk nearly full, a checkpoint. It throws SQLite's SQLITE_FULL where the disk
   * is full, so that the sweep stops writing before its writes take the room held for the end record.
   */
  check(): void;
  /** Just before the end record, whose pages go into the WAL's room: the connection's settings as they were. */
  release(): void;
}

/**
 * Space held for a sweep's end record inside SQLite's own files, so that no other process can take it: the WAL file
 * made long enough for the end record's transaction after the pages written between checkpoints. SQLite does not
 * shrink the WAL after a checkpoint (journal_size_limit -1: the next writer rewrites it from the start) nor on a
 * rolled-back write, and deletes it only when the last connection closes: so the end record's pages are written
 * over bytes the WAL already holds, and need no checkpoint to be kept (the WAL is the record until one succeeds;
 * the database file's own free pages would not do, as the sweep's samples take them first). A file of zeros beside
 * the database, freed just before the end (CapLab before), could be taken by another process writing to the same
 * disk at that moment. Null where the database is not in WAL mode or the room cannot be made (the disk already
 * full): then the end is recorded if there is room.
 */
export function reserveSpace(db: Db, runs = 0): SpaceReserve | null {
  const file = db.name;
  if (!file || file === ':memory:' || db.memory) return null;
  rmSync(staleReserveFile(file), { force: true });
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') return null;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const sizeLimit = db.pragma('journal_size_limit', { simple: true }) as number;
  const autoCheckpoint = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const frame = pageSize + FRAME_HEADER;
  // The sweep's share for its runs where the disk has it, else at least the record of the sweep itself.
  for (const endBytes of [RESERVE_BYTES + RESERVE_PER_RUN * runs, RESERVE_BYTES]) {
    const walBytes = WAL_HEADER + (CHECKPOINT_PAGES + 2 * FLUSH_PAGES) * frame + Math.ceil(endBytes / pageSize) * frame;
    try {
      // A WAL shrunk to journal_size_limit at a restart would give the room back to the disk.
      if (sizeLimit >= 0 && sizeLimit < walBytes) db.pragma('journal_size_limit = -1');
      growWal(db, walBytes);
      db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
      if (walSize(file) >= walBytes) return armed(db, walBytes, autoCheckpoint, sizeLimit);
    } catch {
      // The disk has not that much: try the smaller share.
    }
  }
  db.pragma(`wal_autocheckpoint = ${autoCheckpoint}`);
  if (sizeLimit >= 0) db.pragma(`journal_size_limit = ${sizeLimit}`);
  return null;
}

/**
 * Makes the WAL `bytes` long: commits that each rewrite one small row's page (a frame each; the database file gains
 * nothing), then a checkpoint, so that the next write starts the WAL over and from then on overwrites those frames.
 */
function growWal(db: Db, bytes: number): void {
  const file = db.name;
  db.prepare('INSERT OR IGNORE INTO space_reserve (id, n) VALUES (1, 0)').run();
  const bump = db.prepare('UPDATE space_reserve SET n = n + 1 WHERE id = 1');
  // No checkpoint (it would start the WAL over) until it is long enough; a bound in case it does not grow.
  db.pragma('wal_autocheckpoint = 0');
  for (let i = 0; i < bytes / 1024 && walSize(file) < bytes; i++) {
    for (let j = 0; j < 16; j++) bump.run();
  }
  const r = db.pragma('wal_checkpoint(RESTART)') as { busy: number }[];
  if (r[0]?.busy) throw new Error('the WAL could not be checkpointed: a reader or writer holds it');
}

function walSize(dbFile: string): number {
  try {
    return statSync(`${dbFile}-wal`).size;
  } catch {
    return 0;
  }
}

function armed(db: Db, walBytes: number, autoCheckpoint: number, sizeLimit: number): SpaceReserve {
  const file = db.name;
  return {
    check() {
      // With room on the disk the automatic checkpoint keeps the WAL short; a disk nearly full is checked at each
      // write, as SQLite's automatic checkpoint says nothing when it fails.
      const free = freeBytesNear(file);
      if (free !== null && free >= walBytes) return;
      db.pragma('wal_checkpoint(PASSIVE)');
    },
    release() {
      db.pragma(`wal_autocheckpoint = ${autoCheckpoint}`);
      if (sizeLimit >= 0) db.pragma(`journal_size_limit = ${sizeLimit}`);
    },
  };
}
