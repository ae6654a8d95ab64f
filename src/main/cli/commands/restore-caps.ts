import { defineCommand, printJson } from '../command';
import { backendOption, dbOption, describeRestores, jsonOption, openEngine } from '../open-engine';

export const restoreCapsCommand = defineCommand({
  name: 'restore-caps',
  summary: 'Restore power limits journalled before a sweep that did not finish (crash, kill -9)',
  usage: 'restore-caps [--backend ...] [--db FILE] [--json]',
  options: { ...backendOption, ...dbOption, ...jsonOption },
  examples: ['caplab restore-caps', 'caplab restore-caps --json'],
  async run(args, io) {
    const engine = await openEngine(args, io, { restoreOnOpen: false });
    try {
      const restored = await engine.restoreCaps({});
      if (args.values.json) printJson(io, restored);
      else io.stdout.write((restored.length ? describeRestores(restored) : ['nothing to restore: every journalled limit is already restored']).join('\n') + '\n');
      return restored.every((r) => r.ok) ? 0 : 1;
    } finally {
      await engine.close();
    }
  },
});
