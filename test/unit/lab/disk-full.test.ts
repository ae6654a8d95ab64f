// A full disk is told as such (issue #32 item 2): SQLite's SQLITE_FULL and ENOSPC become DiskFullError, code
// 'unavailable' (exit 4), naming the database; other store errors are left as they are.
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { DiskFullError, diskFullOf, isDiskFullError } from '../../../src/main/lab/store/disk-full';
import { labErrorCode } from '../../../src/main/lab/errors/error-code';
import { exitCodeOf } from '../../../src/shared/errors';
import { tempDir } from '../../helpers/tmp';

describe('disk full', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  const file = join(tmp.dir, 'lab.db');

  it('SQLITE_FULL and ENOSPC are a full disk naming the database, exit 4', () => {
    const full = new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    expect(isDiskFullError(full)).toBe(true);
    const told = diskFullOf(full, file);
    expect(told).toBeInstanceOf(DiskFullError);
    expect(told!.message).toMatch(new RegExp(`^the disk holding ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is full \\(\\d+ KiB free; database or disk is full\\): free some space and try again$`));
    expect(exitCodeOf[labErrorCode(told)]).toBe(4);
    expect(labErrorCode(full)).toBe('unavailable');
    expect(diskFullOf(Object.assign(new Error('write failed'), { code: 'ENOSPC' }), file)).toBeInstanceOf(DiskFullError);
  });

  it('an I/O error with space left, a constraint error or a plain bug is not a full disk', () => {
    // The temp folder has far more than 1 MiB free, so an I/O error there is an I/O error.
    expect(diskFullOf(new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_SHMSIZE'), file)).toBeNull();
    expect(diskFullOf(new Database.SqliteError('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE'), file)).toBeNull();
    expect(diskFullOf(new TypeError('x is undefined'), file)).toBeNull();
    expect(labErrorCode(new TypeError('x is undefined'))).toBe('internal');
  });
});
