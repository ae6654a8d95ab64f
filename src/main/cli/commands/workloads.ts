import { loadWorkloads, summarizeWorkload, userWorkloadsDir } from '../../lab/standalone/workloads';
import { defineCommand, printJson } from '../command';
import { table } from '../format';
import type { ParamSpec } from '../../../shared/workload';

function describeParam(name: string, p: ParamSpec): string {
  const range = p.type === 'int' || p.type === 'number' ? (p.min !== undefined || p.max !== undefined ? ` ${p.min ?? ''}..${p.max ?? ''}` : '') : p.type === 'enum' ? ` ${p.values.join('|')}` : '';
  const def = p.default === undefined ? '' : `=${Array.isArray(p.default) ? JSON.stringify(p.default) : String(p.default)}`;
  return `${name}${def} (${p.type}${range})`;
}

export const workloadsCommand = defineCommand({
  name: 'workloads',
  summary: 'List workload definitions (built-in and from the user workloads folder) with their parameters',
  usage: 'workloads [--json]',
  options: { json: { type: 'boolean' } },
  examples: ['caplab workloads', 'caplab workloads --json'],
  async run(args, io) {
    const catalog = loadWorkloads({ env: io.env });
    for (const e of catalog.errors) io.stderr.write(`caplab workloads: skipped ${e.message.replace(/\n/g, '\n  ')}\n`);
    const list = catalog.definitions.map(summarizeWorkload);
    if (args.values.json) {
      printJson(io, list);
      return 0;
    }
    io.stdout.write(
      table(
        ['id', 'units', 'runs', 'GPUs', 'reader', 'title'],
        list.map((w) => [w.id, w.units, w.runtimes.length > 1 ? w.runtimes.join(',') : w.runtimes[0] ?? '–', w.max_gpus, w.adapter, w.title + (w.builtin ? '' : ' [user]')]),
      ) + '\n\n',
    );
    for (const w of list) io.stdout.write(`${w.id}: ${Object.entries(w.params).map(([n, p]) => describeParam(n, p)).join(', ') || '(no parameters)'}\n`);
    io.stdout.write(`\nuser definitions: ${userWorkloadsDir(io.env)}\n`);
    return 0;
  },
});
