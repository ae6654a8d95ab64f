import { parseArgs } from 'node:util';
import { CliError, type CliIO } from './command';
import { labErrorCode } from '../lab/errors';
import { exitCodeOf } from '../../shared/errors';
import { commandLoaders } from './commands';
import { VERSION } from '../lab/version';
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
    'Common: --db FILE (or CAPLAB_DB), --backend auto|sim|nvml|nvidia-smi|amd-smi, --json.',
    'First time? `caplab devices`, then `caplab sweep resources/plans/demo-sim.yaml`, then `caplab analyze 1`.',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const [name, ...rest] = argv;
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
