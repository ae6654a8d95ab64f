import type Database from 'better-sqlite3';

/**
 * A connection to a lab database. Named here rather than in db.ts so the migrations and the sample-block layer,
 * which db.ts runs when it opens a file, can take one without importing db.ts back.
 */
export type Db = Database.Database;
