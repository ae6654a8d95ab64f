// What the engine hands each of its services (src/main/lab/engine.ts builds one per engine): a service needs
// nothing else of the engine and no other service. Neutral ground: every service's folder imports this file, so it
// imports none of them (test/unit/import-cycles.test.ts).
import type { EventArgs } from '../../shared/api';
import type { BackendChoice } from '../../shared/device';
import type { Db } from './store/db';
import type { Running } from './running';

export interface EngineContext {
  readonly db: Db;
  /** The database's file (`:memory:` for none): the cap journal's and the facility profiles' lab database. */
  readonly dbPath: string;
  readonly host: string;
  readonly env: NodeJS.ProcessEnv;
  /** The CLI's --backend: overrides the backend a plan or a request names. */
  readonly backend: BackendChoice | undefined;
  /** Hands an event to every subscriber of the engine. */
  emit(...e: EventArgs): void;
  /** Refuses a write on an engine that opened the database read-only: `cannot WHAT: …`, code invalid. */
  writable(what: string): void;
  /** The sweeps and tuning sessions running, and a limit change's sudo pty. */
  readonly running: Running;
}

/** How a sweep or tuning session starts (beginSweep, beginTune). */
export interface BeginOptions {
  /** Wait for devices another sweep holds instead of refusing. */
  wait?: boolean;
  /** Where the plan came from (its file), named in the error of a bad plan. */
  where?: string;
  onWait?: (message: string) => void;
}
