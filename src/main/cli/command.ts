import type { ParseArgsConfig } from 'node:util';
import type { CommonFlag, FlagDoc } from './flag-docs';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

export interface CliArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** One `caplab NAME` subcommand. Its flags and JSON fields are a public scripting interface: add, never rename. */
export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  options: OptionSpec;
  /** Its flags' docs for `caplab NAME --help`; a flag it does not describe has the common doc (flag-docs.ts). */
  flags: Partial<Record<string, FlagDoc>>;
  /** The command lines its --help ends with. */
  examples: readonly string[];
  /** Hidden commands (internal helpers such as the simulated workload) are left out of --help. */
  hidden?: boolean;
  run(args: CliArgs, io: CliIO): Promise<number>;
}

/** Every option needs a doc: its own, or the common one (which it may replace with its own). */
type FlagDocs<O extends OptionSpec> = { [K in Exclude<keyof O, CommonFlag>]: FlagDoc } & { [K in keyof O]?: FlagDoc };

/** `flags` may be left out only by a command whose options all have the common docs. */
type FlagsOf<O extends OptionSpec> = [Exclude<keyof O, CommonFlag>] extends [never] ? { flags?: NoInfer<FlagDocs<O>> } : { flags: NoInfer<FlagDocs<O>> };

/** A visible command shows at least one example; a hidden one needs none. */
type ExamplesOf = { hidden?: false; examples: readonly [string, ...string[]] } | { hidden: true; examples?: readonly string[] };

/**
 * A command module's command, its help beside it: a flag without a doc, or a visible command without an example, is
 * a type error in that module rather than "(not described)" in its --help.
 */
export function defineCommand<const O extends OptionSpec>(spec: Pick<CliCommand, 'name' | 'summary' | 'usage' | 'run'> & { options: O } & FlagsOf<O> & ExamplesOf): CliCommand {
  return { flags: {}, examples: [], ...spec };
}

/** A user-facing error: printed as `caplab: message`, exit code 2 for bad input, 1 for failures. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function stringOpt(args: CliArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function numberOpt(args: CliArgs, name: string): number | undefined {
  const v = stringOpt(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliError(`--${name} must be a number, got "${v}"`);
  return n;
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Resolves at the first SIGINT or SIGTERM (a long-running command's Ctrl+C or service stop). */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    const stop = (sig: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
