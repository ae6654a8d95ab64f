import type { CliCommand } from './command';
import { commonFlagDoc, type FlagDoc } from './flag-docs';

/** The doc of one flag of a command (its own, else the common one); undefined when it has none. */
export function flagDoc(cmd: CliCommand, flag: string): FlagDoc | undefined {
  return cmd.flags[flag] ?? commonFlagDoc(flag);
}

/** `caplab NAME --help`: usage, summary, every flag with what it does, its default and an example, then examples. */
export function commandHelp(cmd: CliCommand): string {
  const lines = [`Usage: caplab ${cmd.usage}`, '', cmd.summary, '', 'Options:'];
  for (const [name, spec] of Object.entries(cmd.options)) {
    const doc = flagDoc(cmd, name);
    const value = spec.type === 'string' ? ` ${doc?.value ?? 'VALUE'}` : '';
    lines.push(`  ${spec.short ? `-${spec.short}, ` : ''}--${name}${value}`);
    lines.push(`      ${doc?.text ?? '(not described)'}`);
    if (doc?.default) lines.push(`      Default: ${doc.default}.`);
    if (doc?.example) lines.push(`      Example: ${doc.example}`);
  }
  lines.push('  -h, --help', '      Show this help.');
  if (cmd.examples.length) lines.push('', 'Examples:', ...cmd.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}
