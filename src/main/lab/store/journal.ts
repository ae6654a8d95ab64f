import Database from 'better-sqlite3';
import type { Db } from './db';
import type { TuneRestore } from '../../../shared/tune';

export interface JournalEntry {
  id: number;
  sweep_id: number | null;
  device_key: string;
  backend: string;
  backend_opts: string;
  idx: number;
  device_name: string;
  before_w: number;
}

/** Journals a device's limit before the first change. Written and committed before any set call. */
export function journalLimit(db: Db, e: Omit<JournalEntry, 'id'>): number {
  const info = db
    .prepare('INSERT INTO cap_journal (sweep_id, device_key, backend, backend_opts, idx, device_name, before_w, journalled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(e.sweep_id, e.device_key, e.backend, e.backend_opts, e.idx, e.device_name, e.before_w, Date.now() / 1000);
  return Number(info.lastInsertRowid);
}

/** Unrestored entries, oldest first per device: the oldest holds the limit before any CapLab change. */
export function openJournal(db: Db): JournalEntry[] {
  return db
    .prepare('SELECT id, sweep_id, device_key, backend, backend_opts, idx, device_name, before_w FROM cap_journal WHERE restored_at IS NULL ORDER BY id')
    .all() as JournalEntry[];
}

/** A sweep's journal rows, oldest first: each device's limit before it, and whether and how it was restored. */
export function journalOfSweep(db: Db, sweepId: number): TuneRestore[] {
  return db.prepare('SELECT device_name, before_w, restored_at, restored_w, error FROM cap_journal WHERE sweep_id = ? ORDER BY id').all(sweepId) as TuneRestore[];
}

export function markRestored(db: Db, ids: readonly number[], restoredW: number | null, error: string | null): void {
  const stmt = db.prepare('UPDATE cap_journal SET restored_at = ?, restored_w = ?, error = ? WHERE id = ?');
  db.transaction(() => {
    for (const id of ids) stmt.run(error ? null : Date.now() / 1000, restoredW, error, id);
  })();
}

/** Closes a sweep's open rows of a device whose limit is back (the sweep's own end, before anything else is written). */
export function closeSweepJournal(db: Db, sweepId: number, deviceKey: string, restoredW: number): void {
  db.prepare('UPDATE cap_journal SET restored_at = ?, restored_w = ?, error = NULL WHERE sweep_id = ? AND device_key = ? AND restored_at IS NULL').run(Date.now() / 1000, restoredW, sweepId, deviceKey);
}

const CLOSE_DEVICE_ROWS = 'UPDATE cap_journal SET restored_at = ?, restored_w = ?, error = NULL WHERE device_key = ? AND restored_at IS NULL';

/** Closes every open row of a device whose limit is back (whichever sweep wrote them). */
export function closeDeviceJournal(db: Db, deviceKey: string, restoredW: number): void {
  db.prepare(CLOSE_DEVICE_ROWS).run(Date.now() / 1000, restoredW, deviceKey);
}

/**
 * The same in another lab database on this host (the one a sweep that journalled the device used), opened briefly
 * as it is, without migrating it. Throws when it is gone, busy for over 2 s, or unwritable.
 */
export function closeDeviceJournalIn(dbFile: string, deviceKey: string, restoredW: number): void {
  const other = new Database(dbFile, { fileMustExist: true });
  try {
    other.pragma('busy_timeout = 2000');
    closeDeviceJournal(other, deviceKey, restoredW);
  } finally {
    other.close();
  }
}
