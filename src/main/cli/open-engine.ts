import { existsSync } from 'node:fs';
import { dbPath, Engine, type PtyHandler } from '../lab';
import { BackendChoice } from '../../shared/device';
import { CliError, stringOpt, type CliArgs, type CliIO } from './command';
import type { CapRestore } from '../../shared/records';

export const dbOption = { db: { type: 'string' } } as const;
export const backendOption = { backend: { type: 'string' } } as const;
export const jsonOption = { json: { type: 'boolean' } } as const;

export function backendOpt(args: CliArgs): BackendChoice | undefined {
  const v = stringOpt(args, 'backend');
  if (v === undefined) return undefined;
  const r = BackendChoice.safeParse(v);
  if (!r.success) throw new CliError(`--backend must be one of ${BackendChoice.options.join(', ')}; got "${v}"`);
  return r.data;
}

export function describeRestores(restored: readonly CapRestore[]): string[] {
  return restored.map((r) =>
    r.ok
      ? `restored ${r.device_name} (${r.device_id}) to ${r.before_w} W (was ${r.was_w ?? '?'} W)`
      : `FAILED to restore ${r.device_name} (${r.device_id}) to ${r.before_w} W: ${r.error}`,
  );
}

/**
 * Bridges a limit change's `sudo` pty to the user's terminal so they can type the password. Only on an interactive
 * terminal: elsewhere no one could answer, and sudo runs non-interactively (-n) and fails at once with its reason.
 */
function terminalPtyBridge(io: CliIO): PtyHandler | undefined {
  const stdin = process.stdin;
  if (!stdin.isTTY) return undefined;
  return (p) => {
    stdin.setRawMode(true);
    stdin.resume();
    const onInput = (d: Buffer) => p.write(d.toString());
    stdin.on('data', onInput);
    p.onData((d) => io.stderr.write(d));
    p.onExit(() => {
      stdin.off('data', onInput);
      stdin.setRawMode(false);
      stdin.pause();
    });
  };
}

/**
 * Opens the engine on --db / CAPLAB_DB / the default database. With restoreOnOpen (commands that may change
 * limits anyway), limits left by killed sweeps (dead owners only, any database of the host) are restored first.
 */
export async function openEngine(args: CliArgs, io: CliIO, opts: { restoreOnOpen?: boolean; readOnly?: boolean; optionalDb?: boolean } = {}): Promise<Engine> {
  const named = dbPath(stringOpt(args, 'db'), io.env);
  // A command that may run without a lab database (optionalDb) gets an empty in-memory one rather than creating a file.
  const file = opts.optionalDb && !existsSync(named) ? ':memory:' : named;
  const engine = await Engine.open({
    dbPath: file,
    backend: backendOpt(args),
    env: io.env,
    restoreOnOpen: opts.restoreOnOpen ?? false,
    readOnly: opts.readOnly && file !== ':memory:',
    onPty: opts.readOnly ? undefined : terminalPtyBridge(io),
  });
  const migrated = engine.migrationNote();
  if (migrated) io.stderr.write(`caplab: ${migrated}\n`);
  for (const line of describeRestores(engine.restoredAtOpen)) io.stderr.write(`caplab: a previous sweep was interrupted; ${line}\n`);
  return engine;
}
