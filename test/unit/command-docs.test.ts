// The command registry's help: each command module describes its own flags and gives its examples
// (defineCommand makes a gap a type error); this proves it for what the registry actually loads.
import { describe, expect, it } from 'vitest';
import { commandLoaders } from '../../src/main/cli/commands';
import { flagDoc } from '../../src/main/cli/help';

describe('command docs', () => {
  it('every option of every command, hidden ones too, has a doc (a value name if it takes one); no doc names a flag the command lacks', async () => {
    for (const [name, load] of Object.entries(commandLoaders)) {
      const cmd = await load();
      expect(cmd.name).toBe(name);
      for (const [flag, spec] of Object.entries(cmd.options)) {
        const doc = flagDoc(cmd, flag);
        expect(doc?.text, `caplab ${name} --${flag} has no description`).toBeTruthy();
        if (spec.type === 'string') expect(doc?.value, `caplab ${name} --${flag} names no value`).toBeTruthy();
      }
      expect(Object.keys(cmd.flags).filter((flag) => !(flag in cmd.options)), `caplab ${name} describes flags it does not take`).toEqual([]);
    }
  });

  it('every visible command has examples, each a command line of that command', async () => {
    for (const [name, load] of Object.entries(commandLoaders)) {
      const cmd = await load();
      if (cmd.hidden) continue;
      expect(cmd.examples.length, `caplab ${name} has no example`).toBeGreaterThan(0);
      for (const e of cmd.examples) expect(e.startsWith(`caplab ${name}`), e).toBe(true);
    }
  });
});
