import type { ParseArgsConfig } from 'node:util';

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
  /** Hidden commands (internal helpers such as the simulated workload) are left out of --help. */
  hidden?: boolean;
  run(args: CliArgs, io: CliIO): Promise<number>;
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
