import { CliError, defineCommand, printJson } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { fixed, table } from '../format';

const iso = (t: number | null) => (t === null ? '–' : new Date(t * 1000).toISOString().replace('.000Z', 'Z'));

export const datasetsCommand = defineCommand({
  name: 'datasets',
  summary: 'List imported datasets, show one (devices, segments, import report), or delete one',
  usage: 'datasets [ID] [--delete] [--db FILE] [--json]',
  options: { ...dbOption, ...jsonOption, delete: { type: 'boolean' } },
  flags: { delete: { text: 'Delete the dataset ID (its samples and segments); recorded sweeps are not touched.', default: 'off' } },
  examples: ['caplab datasets', 'caplab datasets 2 --json', 'caplab datasets 2 --delete'],
  async run(args, io) {
    const idText = args.positionals[0];
    const id = idText === undefined ? undefined : Number(idText);
    if (id !== undefined && !Number.isInteger(id)) throw new CliError(`ID must be an integer, got "${idText}"`);
    if (args.values.delete) {
      if (id === undefined) throw new CliError('--delete needs the dataset ID');
      const engine = await openEngine(args, io);
      try {
        if (!(await engine.deleteDataset({ dataset_id: id })).deleted) throw new CliError(`no dataset ${id} in this database (see \`caplab datasets\`)`);
        io.stdout.write(`deleted dataset ${id}\n`);
        return 0;
      } finally {
        await engine.close();
      }
    }
    const engine = await openEngine(args, io, { readOnly: true });
    try {
      if (id === undefined) {
        const all = await engine.listDatasets({});
        if (args.values.json) {
          printJson(io, all);
          return 0;
        }
        if (all.length === 0) io.stdout.write('no datasets (import one with `caplab import PATH`)\n');
        else
          io.stdout.write(
            table(
              ['id', 'name', 'format', 'files', 'devices', 'samples', 'from', 'to', 'segments'],
              all.map((d) => [d.id, d.name, d.format, d.files.length, d.devices.length, d.samples, iso(d.t_start), iso(d.t_end), d.segments.length]),
            ) + '\n',
          );
        return 0;
      }
      const d = await engine.getDataset({ dataset_id: id });
      if (args.values.json) {
        printJson(io, d);
        return 0;
      }
      io.stdout.write(`dataset ${d.id} "${d.name}" — ${d.format}, ${d.samples} samples, ${iso(d.t_start)} .. ${iso(d.t_end)}, zone ${d.timezone ?? '–'}\n`);
      for (const f of d.files) io.stdout.write(`  file ${f.path} (${f.format}, ${f.bytes} bytes, sha256 ${f.content_hash.slice(0, 12)}…)\n`);
      io.stdout.write('\n' + table(['device', 'kind', 'name', 'index'], d.devices.map((x) => [x.key, x.kind, x.name, x.index])) + '\n\n');
      io.stdout.write(
        table(
          ['segment', 'name', 'origin', 'from', 's', 'cap W', 'workload', 'units'],
          d.segments.map((s) => [s.id, s.label, s.origin, iso(s.start), fixed(s.end - s.start, 1), s.cap_w, s.workload, s.units_in_window === null ? null : `${fixed(s.units_in_window, 0)} ${s.units ?? ''}`]),
        ) + '\n',
      );
      return 0;
    } finally {
      await engine.close();
    }
  },
});
