import { CliError, stringOpt, type CliArgs, type CliIO } from './command';
import { describeMigration, openDb, StoreError, type Db } from '../lab/store/db';
import { dbPath } from '../lab/paths';

/**
 * Opens the lab database read-only for commands that only read (reports, exports): never writes, never a GPU. A
 * database of an earlier release is migrated first, and the user is told, as every command does.
 */
export function openReadOnly(args: CliArgs, io: CliIO): Db {
  const file = dbPath(stringOpt(args, 'db'), io.env);
  try {
    const db = openDb(file, { readonly: true });
    const note = describeMigration(file, db);
    if (note) io.stderr.write(`caplab: ${note}\n`);
    return db;
  } catch (e) {
    if (e instanceof StoreError) throw new CliError(e.message);
    throw e;
  }
}
