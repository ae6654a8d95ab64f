import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations';

export type Db = Database.Database;

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Opens (creating if needed) a lab database: WAL, synchronous=NORMAL, migrations by user_version. */
export function openDb(file: string, opts: { readonly?: boolean } = {}): Db {
  let db: Db;
  try {
    if (!opts.readonly && file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  } catch (e) {
    throw new StoreError(`cannot open database ${file}: ${(e as Error).message}`);
  }
  try {
    db.pragma('busy_timeout = 5000');
    // A newer CapLab's database is refused before anything is changed (journal mode included).
    checkVersion(db);
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
    }
  } catch (e) {
    db.close();
    throw new StoreError(`cannot use database ${file}: ${(e as Error).message}`);
  }
  return db;
}

function checkVersion(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new StoreError(`database schema version ${current} is newer than this CapLab (${migrations.length}); upgrade CapLab`);
  }
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
