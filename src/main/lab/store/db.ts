import { LabError } from '../../../shared/errors';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations';
import { diskFullOf } from './disk-full';
import type { Db } from './connection';
import { staleReserveFile } from './reserve';

export type { Db };

/** The database given cannot be opened or used (no such file, not a database, a newer schema). */
export class StoreError extends LabError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'StoreError';
  }
}

/** Opens (creating if needed) a lab database: WAL, synchronous=NORMAL, migrations by user_version. */
export function openDb(file: string, opts: { readonly?: boolean } = {}): Db {
  if (opts.readonly) return openReadonly(file);
  let db: Db;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = new Database(file);
  } catch (e) {
    throw diskFullOf(e, file) ?? new StoreError(`cannot open database ${file}: ${(e as Error).message}`);
  }
  try {
    db.pragma('busy_timeout = 5000');
    // A newer CapLab's database is refused before anything is changed (journal mode included).
    checkVersion(db);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, file);
    // Space an older CapLab held beside the database for a sweep's end: the reserve is now in the WAL.
    if (file !== ':memory:') rmSync(staleReserveFile(file), { force: true });
  } catch (e) {
    db.close();
    throw diskFullOf(e, file) ?? new StoreError(`cannot use database ${file}: ${(e as Error).message}`);
  }
  return db;
}

/**
 * Read-only open. A database from an older release is migrated first (one writable open, with its backup copy):
 * the upgrade is one-time, and reading an old schema through new code would fail anyway.
 */
function openReadonly(file: string): Db {
  const open = () => {
    try {
      return new Database(file, { readonly: true, fileMustExist: true });
    } catch (e) {
      throw diskFullOf(e, file) ?? new StoreError(`cannot open database ${file}: ${(e as Error).message}`);
    }
  };
  let db = open();
  let report: MigrationReport | null = null;
  try {
    db.pragma('busy_timeout = 5000');
    checkVersion(db);
    if ((db.pragma('user_version', { simple: true }) as number) < migrations.length) {
      db.close();
      const rw = openDb(file);
      report = migrationOf(rw);
      rw.close();
      db = open();
      db.pragma('busy_timeout = 5000');
    }
  } catch (e) {
    if (db.open) db.close();
    throw e instanceof LabError ? e : (diskFullOf(e, file) ?? new StoreError(`cannot use database ${file}: ${(e as Error).message}`));
  }
  if (report) migrated.set(db, report);
  return db;
}

/** One line for the user about a migration that just happened (null when none did). */
export function describeMigration(file: string, db: Db): string | null {
  const m = migrationOf(db);
  if (!m || m.from === 0) return null;
  return `migrated ${file} from schema ${m.from} -> ${m.to}; the copy from before is at ${m.backup}`;
}

export interface MigrationReport {
  from: number;
  to: number;
  /** The copy taken before migrating (null for a new database). */
  backup: string | null;
}

const migrated = new WeakMap<Db, MigrationReport>();

/** What opening this database migrated, if anything. */
function migrationOf(db: Db): MigrationReport | null {
  return migrated.get(db) ?? null;
}

/** A free name beside the database for the pre-migration copy. */
function backupPath(file: string, version: number): string {
  const base = `${file}.v${version}.bak`;
  return existsSync(base) ? `${file}.v${version}.${Date.now()}.bak` : base;
}

function checkVersion(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new StoreError(`database schema version ${current} is newer than this CapLab (${migrations.length}); upgrade CapLab`);
  }
}

function migrate(db: Db, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current === migrations.length) return;
  let backup: string | null = null;
  if (current > 0 && file !== ':memory:') {
    // A consistent copy (WAL included) before anything changes; a failed migration leaves the original untouched too.
    backup = backupPath(file, current);
    db.prepare('VACUUM INTO ?').run(backup);
  }
  for (let v = current; v < migrations.length; v++) {
    const step = migrations[v]!;
    db.transaction(() => {
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  migrated.set(db, { from: current, to: migrations.length, backup });
}
