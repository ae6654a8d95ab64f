import { parseArgs } from 'node:util';
import { backendUsage } from '../../shared/backends';
import { CliError, type CliIO } from './command';
import { labErrorCode, VERSION } from '../lab/basics';
import { exitCodeOf } from '../../shared/errors';
import { commandLoaders } from './commands';
import { commandHelp } from './help';
import { didYouMean } from '../../shared/suggest';

async function helpText(): Promise<string> {
  const commands = await Promise.all(Object.values(commandLoaders).map((load) => load()));
  const visible = commands.filter((c) => !c.hidden);
  const width = Math.max(...visible.map((c) => c.name.length));
  return [
    `caplab ${VERSION} — GPU power-cap lab`,
    '',
    'Usage: caplab <command> [options]',
    '',
    'Commands:',
    ...visible.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `caplab <command> --help` for what each option does, its default and examples.',
    `Common: --db FILE (or CAPLAB_DB), --backend ${backendUsage}, --json (before or after the command).`,
    'First time? `caplab devices`, then `caplab sweep resources/plans/demo-sim.yaml`, then `caplab analyze 1`.',
  ].join('\n');
}

// The common options people also type before the command (`caplab --db lab.db runs`, as git and docker allow);
// they are moved behind it, where the command's own parser checks them (one that does not take it says so).
const commonWithValue = new Set(['--db', '--backend']);
const commonFlags = new Set(['--json']);

function commandFirst(argv: string[]): string[] {
  const before: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const a = argv[i]!;
    const key = a.split('=')[0]!;
    if (commonFlags.has(a)) before.push(argv[i++]!);
    else if (commonWithValue.has(key) && a.includes('=')) before.push(argv[i++]!);
    else if (commonWithValue.has(key) && i + 1 < argv.length) before.push(argv[i++]!, argv[i++]!);
    else break;
  }
  return before.length === 0 ? argv : [...argv.slice(i), ...before];
}

export async function main(argv: string[], io: CliIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const [name, ...rest] = commandFirst(argv);
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write((await helpText()) + '\n');
    return 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(VERSION + '\n');
    return 0;
  }
  const load = Object.prototype.hasOwnProperty.call(commandLoaders, name) ? commandLoaders[name] : undefined;
  if (!load) {
    io.stderr.write(`caplab: unknown command "${name}"${didYouMean(name, Object.keys(commandLoaders))}\n\n${await helpText()}\n`);
    return 2;
  }
  const cmd = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(commandHelp(cmd) + '\n');
    return 0;
  }
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: cmd.options, allowPositionals: true, strict: true });
    } catch (e) {
      throw new CliError(`${name}: ${(e as Error).message}`);
    }
    return await cmd.run({ values: parsed.values, positionals: parsed.positionals }, io);
  } catch (e) {
    if (e instanceof CliError) {
      io.stderr.write(`caplab ${name}: ${e.message}\n`);
      return e.exitCode;
    }
    // Engine errors by their code (src/shared/errors.ts). The message is what the user needs; the stack of an
    // internal one (a bug) with CAPLAB_DEBUG=1, for a report.
    const code = labErrorCode(e);
    const err = e as Error;
    io.stderr.write(`caplab ${name}: ${err.message ?? String(e)}\n`);
    if (code === 'internal') io.stderr.write(io.env.CAPLAB_DEBUG ? `${err.stack ?? ''}\n` : '(an internal error: CAPLAB_DEBUG=1 shows where it came from, for a bug report)\n');
    return exitCodeOf[code];
  }
}
