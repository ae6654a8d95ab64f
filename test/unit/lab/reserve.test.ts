// The room a sweep holds for its end record lives in the WAL (store/reserve.ts): on a real database file, the WAL is
// grown (the database file not), keeps its length through checkpoints and later writes, the connection's settings
// are back after the end, and a reserve file an older CapLab left beside the database is removed at open.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../../../src/main/lab/store/db';
import { reserveSpace, staleReserveFile } from '../../../src/main/lab/store/reserve';
import { tempDir } from '../../helpers/tmp';

let tmp = tempDir();
afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

const walSize = (file: string) => statSync(`${file}-wal`).size;

describe('space reserve', () => {
  it('grows the WAL past the end share, not the database, and the WAL keeps its length through checkpoints and writes', () => {
    const file = join(tmp.dir, 'lab.db');
    const db = openDb(file);
    db.exec('CREATE TABLE t (x BLOB)');
    const pages = db.pragma('page_count', { simple: true }) as number;
    const reserve = reserveSpace(db, 1000)!;
    expect(reserve).not.toBeNull();
    const grown = walSize(file);
    // 256 KiB + 256 B a run for the end record, after 32 + 2 x 16 pages of writes between checkpoints.
    expect(grown).toBeGreaterThanOrEqual(32 + (32 + 32) * 4120 + Math.ceil((256 * 1024 + 256 * 1000) / 4096) * 4120);
    expect(db.pragma('page_count', { simple: true })).toBeLessThanOrEqual(pages + 1);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(32);
    for (let i = 0; i < 200; i++) {
      db.prepare('INSERT INTO t VALUES (randomblob(2000))').run();
      reserve.check();
    }
    db.pragma('wal_checkpoint(PASSIVE)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    // Rewritten from the start after each checkpoint, never shrunk: the room stays SQLite's.
    expect(walSize(file)).toBe(grown);
    reserve.release();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    db.close();
  });

  it('is null for an in-memory database', () => {
    const db = openDb(':memory:');
    expect(reserveSpace(db)).toBeNull();
    db.close();
  });

  it('removes the reserve file an older CapLab left beside the database when it opens', () => {
    const file = join(tmp.dir, 'lab.db');
    openDb(file).close();
    writeFileSync(staleReserveFile(file), Buffer.alloc(256 * 1024));
    const db = openDb(file);
    expect(existsSync(staleReserveFile(file))).toBe(false);
    db.close();
  });
});
