// Transactions for code outside the store, which does not touch the connection itself (lint: SQL only in lab/store).
import type { Db } from './db';

/** Runs fn in one transaction (a savepoint when one is already open): committed when it returns, rolled back when it throws. */
export function withTransaction<T>(db: Db, fn: () => T): T {
  return db.transaction(fn)();
}

// An import awaits file reads and parser threads inside its transaction, which a synchronous transaction function
// cannot span: it opens and closes the transaction and its per-file savepoints with these.

/** Opens a write transaction that takes the write lock at once, so no other writer gets in between. */
export function beginImmediate(db: Db): void {
  db.exec('BEGIN IMMEDIATE');
}

export function commit(db: Db): void {
  db.exec('COMMIT');
}

export function rollback(db: Db): void {
  db.exec('ROLLBACK');
}

/** Rolls back the open transaction, if any (after a failure, which may already have ended it). */
export function rollbackIfOpen(db: Db): void {
  if (db.inTransaction) db.exec('ROLLBACK');
}

function savepointName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`savepoint name "${name}" is not a plain identifier`);
  return name;
}

export function savepoint(db: Db, name: string): void {
  db.exec(`SAVEPOINT ${savepointName(name)}`);
}

/** Undoes what was written since the savepoint; the savepoint stays open until released. */
export function rollbackToSavepoint(db: Db, name: string): void {
  db.exec(`ROLLBACK TO ${savepointName(name)}`);
}

export function releaseSavepoint(db: Db, name: string): void {
  db.exec(`RELEASE ${savepointName(name)}`);
}
