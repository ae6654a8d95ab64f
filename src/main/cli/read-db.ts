import { CliError, stringOpt, type CliArgs } from './command';
import { describeMigration, openDb, StoreError, type Db } from '../lab/store/db';
import { dbPath } from '../lab/paths';

/** Opens the lab database read-only for commands that only read (reports, exports): never writes, never a GPU. */
export function openReadOnly(args: CliArgs, env: NodeJS.ProcessEnv, stderr?: NodeJS.WritableStream): Db {
  const file = dbPath(stringOpt(args, 'db'), env);
  try {
    const db = openDb(file, { readonly: true });
    const note = describeMigration(file, db);
    if (note) stderr?.write(`caplab: ${note}\n`);
    return db;
  } catch (e) {
    if (e instanceof StoreError) throw new CliError(e.message);
    throw e;
  }
}
