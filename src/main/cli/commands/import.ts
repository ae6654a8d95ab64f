import { existsSync } from 'node:fs';
import { CliError, defineCommand, numberOpt, printJson, stringOpt } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { fixed, progressBar, table } from '../format';
import { ImportError } from '../../../core/import';
import { checkZone, localZone } from '../../../core/import/time';
import { ImportFormat } from '../../../shared/dataset';
import { exitCodeOf } from '../../../shared/errors';

const iso = (t: number | null) => (t === null ? '–' : new Date(t * 1000).toISOString());

export const importCommand = defineCommand({
  name: 'import',
  summary: 'Import power logs (nvidia-smi, WattAMeter, DCGM, Prometheus, Zeus, CodeCarbon, NLR) as a dataset',
  usage:
    'import PATH... [--format auto|NAME] [--tz ZONE] [--name N] [--fields LIST] [--interval S] [--db FILE] [--json]\n' +
    `  formats: ${ImportFormat.options.join(', ')}; PATH may be a directory tree (per-cap <W>Watts/ directories become segments)\n` +
    '  or a .zip archive (each member imported with its own importer); a CapLab JSON export (caplab export json) becomes a sweep or dataset again',
  options: { ...dbOption, ...jsonOption, format: { type: 'string' }, tz: { type: 'string' }, name: { type: 'string' }, fields: { type: 'string' }, interval: { type: 'string' } },
  flags: {
    format: { value: 'NAME', text: 'The log format (see the list above): auto detects it from the content.', default: 'auto', example: '--format dcgm-dmon' },
    tz: { value: 'ZONE', text: 'Time zone of timestamps that carry none (an IANA name such as Europe/Berlin, or UTC).', default: 'this machine\'s zone', example: '--tz UTC' },
    name: { value: 'N', text: 'Name of the new dataset.', default: 'the name of the (first) file or folder imported', example: "--name 'H200 node 3, May'" },
    fields: { value: 'LIST', text: 'For headerless nvidia-smi CSV (--format=csv,noheader): the --query-gpu field list it was written with.', example: '--fields timestamp,index,power.draw' },
    interval: { value: 'S', text: 'Sampling interval of logs without timestamps (dcgmi dmon --delay), seconds.', default: '1', example: '--interval 0.1' },
  },
  examples: ['caplab import gpu-power.csv', 'caplab import logs/ --tz UTC --name "H200 node 3" --json'],
  async run(args, io) {
    if (args.positionals.length === 0) throw new CliError('give one or more files or directories to import');
    const fmtText = stringOpt(args, 'format') ?? 'auto';
    const fmt = fmtText === 'auto' ? 'auto' : ImportFormat.safeParse(fmtText);
    if (fmt !== 'auto' && !fmt.success) throw new CliError(`--format must be auto or one of ${ImportFormat.options.join(', ')}; got "${fmtText}"`);
    let zone = stringOpt(args, 'tz') ?? localZone();
    try {
      zone = checkZone(zone);
    } catch {
      throw new CliError(`--tz: unknown time zone "${zone}" (an IANA name such as Europe/Berlin, or UTC)`);
    }
    const interval = numberOpt(args, 'interval');
    if (interval !== undefined && !(interval > 0)) throw new CliError('--interval must be a positive number of seconds');
    const fields = stringOpt(args, 'fields')?.split(',').map((f) => f.trim()).filter(Boolean);
    // A path that is not there is bad input (exit 2), found before the database is opened.
    for (const p of args.positionals) if (!existsSync(p)) throw new CliError(`${p}: no such file or directory`);
    const engine = await openEngine(args, io);
    // A redrawn bar on a terminal; elsewhere (logs, scripts) a progress line at most every 2 s.
    const tty = !args.values.json && io.stderr.isTTY === true;
    // The first line after 2 s of importing (opening the database is not progress).
    let lastLine = performance.now();
    try {
      let outcome;
      try {
        outcome = await engine.importPaths(args.positionals, {
          format: fmt === 'auto' ? 'auto' : fmt.data,
          zone,
          name: stringOpt(args, 'name'),
          fields,
          interval_s: interval,
          onProgress: (p) => {
            const fraction = p.bytes_total ? p.bytes_done / p.bytes_total : 1;
            const label = `${p.files_done}/${p.files_total} files, ${(p.samples / 1e6).toFixed(2)} M samples`;
            if (tty) io.stderr.write(`\r${progressBar(fraction, 30, label)}`);
            else if (!args.values.json && performance.now() - lastLine > 2000) {
              lastLine = performance.now();
              io.stderr.write(`caplab import: ${(fraction * 100).toFixed(0)} % (${label})\n`);
            }
          },
        });
      } catch (e) {
        // Bad input, as every command's: the engine's `invalid` code (src/shared/errors.ts).
        if (e instanceof ImportError) throw new CliError(`cannot import ${e.message}`, exitCodeOf.invalid);
        throw e;
      } finally {
        if (tty) io.stderr.write('\n');
      }
      if (args.values.json) {
        printJson(io, outcome);
        return 0;
      }
      for (const z of outcome.archives) io.stdout.write(`${z.path}: ${z.members} member(s) read from the zip archive\n`);
      for (const sw of outcome.sweeps)
        io.stdout.write(
          sw.duplicate_of_sweep !== null
            ? `already imported: ${sw.file} is sweep ${sw.duplicate_of_sweep} (${sw.name}); nothing written\n`
            : `sweep ${sw.sweep_id} "${sw.name}" imported from ${sw.file} (CapLab export): caplab analyze ${sw.sweep_id}\n`,
        );
      for (const d of outcome.datasets)
        if (d.dataset_id !== outcome.dataset?.id && d.duplicate_of_dataset !== outcome.duplicate_of?.dataset_id)
          io.stdout.write(
            d.duplicate_of_dataset !== null
              ? `already imported: ${d.file} is dataset ${d.duplicate_of_dataset} (${d.name}); nothing written\n`
              : `dataset ${d.dataset_id} "${d.name}" imported from ${d.file} (CapLab export): caplab analyze --dataset ${d.dataset_id}\n`,
          );
      if (!outcome.dataset) {
        const d = outcome.duplicate_of;
        if (d) io.stdout.write(`already imported: ${d.path} is in dataset ${d.dataset_id} (${d.name}); nothing written\n`);
        return 0;
      }
      const ds = outcome.dataset;
      const r = ds.report!;
      io.stdout.write(`dataset ${ds.id} "${ds.name}": ${ds.files.length} file(s), format ${ds.format}, ${ds.samples} samples, ${iso(ds.t_start)} .. ${iso(ds.t_end)} (zone ${ds.timezone})\n`);
      io.stdout.write(table(['device', 'kind', 'name', 'samples', 'max gap s'], r.devices.map((d) => [d.key, d.kind, d.name, d.rows, fixed(d.max_gap_s, 2)])) + '\n');
      io.stdout.write(table(['column', 'as', 'unit', 'sensor kind'], r.columns.map((c) => [c.source, c.channel, c.unit, c.sensor_kind])) + '\n');
      io.stdout.write(`rows read ${r.rows_read}, skipped ${r.rows_skipped}\n`);
      for (const s of r.skipped) io.stdout.write(`  skipped ${s.count}: ${s.reason} (line${s.lines.length > 1 ? 's' : ''} ${s.lines.join(', ')}${s.count > s.lines.length ? ', ...' : ''})\n`);
      io.stdout.write(`segments: ${ds.segments.length} (${[...new Set(ds.segments.map((s) => s.origin))].join(', ') || 'none'})\n`);
      if (outcome.duplicate_of) io.stdout.write(`some files were already imported (dataset ${outcome.duplicate_of.dataset_id}) and were skipped\n`);
      for (const w of r.warnings) io.stderr.write(`caplab import: ${w}\n`);
      return 0;
    } finally {
      await engine.close();
    }
  },
});
