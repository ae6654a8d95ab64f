import { parseArgs } from 'node:util';
import { CliError, type CliCommand, type CliIO } from './command';
import { labErrorCode } from '../lab/errors';
import { exitCodeOf } from '../../shared/errors';
import { commandLoaders } from './commands';
import { VERSION } from '../lab/version';

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
    'Run `caplab <command> --help` for a command\'s options. Common: --db FILE (or CAPLAB_DB), --json.',
  ].join('\n');
}

function commandHelp(cmd: CliCommand): string {
  const lines = [`caplab ${cmd.usage}`, '', cmd.summary, ''];
  for (const [name, spec] of Object.entries(cmd.options)) {
    const flag = spec.short ? `-${spec.short}, --${name}` : `    --${name}`;
    lines.push(`  ${flag}${spec.type === 'string' ? ' VALUE' : ''}`);
  }
  return lines.join('\n');
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
    io.stderr.write(`caplab: unknown command "${name}"\n\n${await helpText()}\n`);
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
    // Engine errors by their code (src/shared/errors.ts); only an internal one (a bug) shows its stack.
    const code = labErrorCode(e);
    io.stderr.write(`caplab ${name}: ${code === 'internal' ? ((e as Error).stack ?? String(e)) : (e as Error).message}\n`);
    return exitCodeOf[code];
  }
}
