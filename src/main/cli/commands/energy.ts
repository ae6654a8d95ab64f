import { CliError, defineCommand, numberOpt, printJson, stringOpt } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { fixed, table, withBound } from '../format';
import type { DatasetRecord } from '../../../shared/dataset';

/** A time argument: epoch seconds (e.g. 1764491157.5) or ISO-8601 (a time without an offset is local time). */
export function parseTimeArg(name: string, text: string | undefined): number {
  if (text === undefined) throw new CliError(`--${name} is required (ISO-8601 or epoch seconds)`);
  const s = text.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(s)) return Number(s);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(s) ? Date.parse(s) : NaN;
  if (!Number.isFinite(ms)) throw new CliError(`--${name} must be ISO-8601 (2026-11-30T08:45:57Z) or epoch seconds; got "${text}"`);
  return ms / 1000;
}

export const energyCommand = defineCommand({
  name: 'energy',
  summary: 'Energy of recorded GPU samples over a time range (counter > instant > 1 s average, the code runs use)',
  usage: 'energy --from T --to T [--device N] [--db FILE] [--json] | energy --dataset ID [--from T] [--to T] [--segment N] [--device N]   (T: ISO-8601 or epoch seconds)',
  options: { ...dbOption, ...jsonOption, from: { type: 'string' }, to: { type: 'string' }, device: { type: 'string' }, dataset: { type: 'string' }, segment: { type: 'string' } },
  flags: {
    from: { value: 'T', text: 'Start of the range: ISO-8601 time or epoch seconds (required).', example: '--from 2026-05-01T10:00:00Z' },
    to: { value: 'T', text: 'End of the range, as --from (required).', example: '--to 1767225700' },
    device: { value: 'N', text: 'Only this device index.', default: 'every device with samples', example: '--device 0' },
    dataset: { value: 'ID', text: 'Samples of an imported dataset instead of the sweeps\' own (--from/--to then default to the whole dataset).', default: 'the sweeps\' samples', example: '--dataset 2' },
    segment: { value: 'N', text: 'With --dataset: only this segment\'s time range (see caplab datasets ID).', default: 'the whole dataset', example: '--segment 4' },
  },
  examples: ['caplab energy --from 2026-05-01T10:00:00Z --to 2026-05-01T11:00:00Z', 'caplab energy --from 1767225600 --to 1767225700 --device 0 --json', 'caplab energy --dataset 2 --segment 4'],
  async run(args, io) {
    const datasetId = numberOpt(args, 'dataset');
    if (datasetId !== undefined && !Number.isInteger(datasetId)) throw new CliError('--dataset must be a dataset id (see `caplab datasets`)');
    if (datasetId === undefined && args.values.segment !== undefined) throw new CliError('--segment N is a segment of an imported dataset: give --dataset ID with it');
    const device = numberOpt(args, 'device');
    if (device !== undefined && (!Number.isInteger(device) || device < 0)) throw new CliError('--device must be a device index (0, 1, ...)');
    const engine = await openEngine(args, io, { readOnly: true });
    try {
      let from: number;
      let to: number;
      let ds: DatasetRecord | null = null;
      if (datasetId !== undefined) {
        ds = await engine.getDataset({ dataset_id: datasetId });
        const segId = numberOpt(args, 'segment');
        const seg = segId === undefined ? null : ds.segments.find((s) => s.id === segId);
        if (segId !== undefined && !seg) throw new CliError(`dataset ${ds.id} has no segment ${segId} (see \`caplab datasets ${ds.id}\`)`);
        from = stringOpt(args, 'from') !== undefined ? parseTimeArg('from', stringOpt(args, 'from')) : (seg?.start ?? ds.t_start ?? 0);
        to = stringOpt(args, 'to') !== undefined ? parseTimeArg('to', stringOpt(args, 'to')) : (seg?.end ?? ds.t_end ?? 0);
      } else {
        from = parseTimeArg('from', stringOpt(args, 'from'));
        to = parseTimeArg('to', stringOpt(args, 'to'));
      }
      if (!(to > from)) throw new CliError(`--to must be after --from (got ${from} .. ${to})`);
      const r = await engine.energyInRange({ from, to, device_index: device, dataset_id: ds?.id });
      if (args.values.json) {
        printJson(io, r);
        return r.energy_j === null ? 1 : 0;
      }
      io.stdout.write(
        table(
          ['device', 'name', 'energy J', 'mean W', 'samples', 'sensor', 'method', 'note'],
          r.devices.map((d) => [d.index, d.name, withBound(d.energy_j, d.uncertainty_j), fixed(d.mean_w, 1), d.samples, d.sensor, d.method ?? null, d.reason ?? (d.warnings.join('; ') || null)]),
        ) + '\n',
      );
      io.stdout.write(`total ${withBound(r.energy_j, r.uncertainty_j) ?? '–'} J over ${r.duration_s.toFixed(3)} s (mean ${fixed(r.mean_w, 1) ?? '–'} W), sensor ${r.sensor ?? 'none'}\n`);
      if (r.uncertainty_basis && r.uncertainty_j != null) io.stdout.write(`± is a ${r.uncertainty_basis}\n`);
      for (const w of r.warnings) io.stderr.write(`caplab energy: ${w}\n`);
      return r.energy_j === null ? 1 : 0;
    } finally {
      await engine.close();
    }
  },
});
