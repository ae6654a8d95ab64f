import { CliError, defineCommand, numberOpt, printJson, stringOpt, type CliArgs } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { analysisOptions, analysisOptionsOf } from '../analysis-options';
import { parseTimeArg } from './energy';
import type { FileExport, SampleSelection, TimeFormat } from '../../lab';
import { SampleColumnName, SAMPLE_EXPORT_COLUMNS, type SampleExportColumn, type WrittenFile } from '../../../shared/export';
import { ANALYSIS } from '../flag-docs';

const KINDS = ['samples', 'runs', 'tune', 'analysis', 'json'] as const;
const ALL_COLUMNS: SampleExportColumn[] = SAMPLE_EXPORT_COLUMNS.map((c) => c.name);

function idOpt(args: CliArgs, name: string): number | undefined {
  const v = numberOpt(args, name);
  if (v !== undefined && (!Number.isInteger(v) || v <= 0)) throw new CliError(`--${name} must be a positive whole number (see \`caplab runs\`)`);
  return v;
}

function sweepIdOf(args: CliArgs): number {
  const text = args.positionals[1];
  if (!text || args.positionals.length > 2) throw new CliError(`expected one SWEEP_ID after "${args.positionals[0]}"`);
  const id = Number(text);
  if (!Number.isInteger(id) || id <= 0) throw new CliError(`SWEEP_ID must be a positive whole number, got "${text}"`);
  return id;
}

function required(args: CliArgs, name: string, what: string): string {
  const v = stringOpt(args, name);
  if (!v) throw new CliError(`--${name} FILE is required: ${what}`);
  return v;
}

function columnsOf(args: CliArgs): SampleExportColumn[] {
  const text = stringOpt(args, 'columns');
  if (!text) return ALL_COLUMNS;
  const cols = text.split(',').map((c) => c.trim()).filter(Boolean);
  for (const c of cols) if (!SampleColumnName.safeParse(c).success) throw new CliError(`--columns: unknown column "${c}"; choose from ${ALL_COLUMNS.join(', ')}`);
  return cols as SampleExportColumn[];
}

/** The samples request from the flags; whether the run, sweep or dataset exists is the engine's to say. */
function samplesRequest(args: CliArgs): FileExport {
  const selection: SampleSelection = { runId: idOpt(args, 'run'), sweepId: idOpt(args, 'sweep'), datasetId: idOpt(args, 'dataset') };
  if (stringOpt(args, 'from') !== undefined) selection.from = parseTimeArg('from', stringOpt(args, 'from'));
  if (stringOpt(args, 'to') !== undefined) selection.to = parseTimeArg('to', stringOpt(args, 'to'));
  const device = numberOpt(args, 'device');
  if (device !== undefined) selection.deviceIndex = device;
  const time = (stringOpt(args, 'time') ?? 'epoch') as TimeFormat;
  if (time !== 'epoch' && time !== 'iso') throw new CliError(`--time must be epoch or iso, got "${time}"`);
  return { kind: 'samples', selection, columns: columnsOf(args), time, csv: stringOpt(args, 'csv'), parquet: stringOpt(args, 'parquet') };
}

function requestOf(kind: (typeof KINDS)[number], args: CliArgs): FileExport {
  if (kind === 'samples') return samplesRequest(args);
  const tariff = analysisOptionsOf(args).tariff;
  if (kind === 'json' && args.values.dataset !== undefined) {
    if (args.positionals.length > 1) throw new CliError('give either SWEEP_ID or --dataset ID, not both');
    return { kind: 'json', dataset_id: idOpt(args, 'dataset')!, out: required(args, 'out', 'where to write the JSON'), tariff };
  }
  const sweep_id = sweepIdOf(args);
  if (kind === 'runs') return { kind, sweep_id, csv: required(args, 'csv', 'where to write the run summaries') };
  if (kind === 'tune') return { kind, sweep_id, csv: required(args, 'csv', "where to write the tuning session's outcome") };
  if (kind === 'analysis') return { kind, sweep_id, out_dir: required(args, 'out-dir', 'the folder for the analysis tables'), analysis: analysisOptionsOf(args) };
  return { kind: 'json', sweep_id, out: required(args, 'out', 'where to write the JSON'), tariff };
}

export const exportCommand = defineCommand({
  name: 'export',
  summary: 'Export samples (CSV, Parquet), run summaries, a tuning session\'s outcome and analysis tables (CSV), or a whole sweep or dataset (JSON)',
  usage: [
    'export samples (--run ID|--sweep ID|--dataset ID|--from T --to T) [--device N] [--columns a,b] [--time epoch|iso] (--csv FILE|--parquet FILE)',
    '       caplab export runs SWEEP_ID --csv FILE',
    '       caplab export tune SWEEP_ID --csv FILE',
    '       caplab export analysis SWEEP_ID --out-dir DIR [--overhead W] [--selector S] [--slowdown F] [--weight W] [--include-unenforced] [--include-flagged] [--margin F] [--price-per-mwh N] [--grid-g-per-kwh N] [--currency C] [--tariff FILE] [--price-csv FILE] [--carbon-csv FILE]',
    '       caplab export json (SWEEP_ID|--dataset ID) --out FILE [tariff flags as for analysis]       (all: [--db FILE] [--json])',
  ].join('\n'),
  options: {
    ...dbOption,
    ...jsonOption,
    ...analysisOptions,
    run: { type: 'string' },
    sweep: { type: 'string' },
    dataset: { type: 'string' },
    device: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    columns: { type: 'string' },
    time: { type: 'string' },
    csv: { type: 'string' },
    parquet: { type: 'string' },
    out: { type: 'string' },
    'out-dir': { type: 'string' },
  },
  flags: {
    ...ANALYSIS,
    run: { value: 'ID', text: 'export samples: the samples of this run.', example: '--run 12' },
    sweep: { value: 'ID', text: 'export samples: the samples of every run of this sweep.', example: '--sweep 3' },
    dataset: { value: 'ID', text: 'export samples: the samples of this imported dataset.', example: '--dataset 2' },
    device: { value: 'N', text: 'export samples: only this device index.', default: 'every device', example: '--device 0' },
    from: { value: 'T', text: 'export samples: start of the time range, ISO-8601 time or epoch seconds.', default: 'no lower bound', example: '--from 2026-05-01T10:00:00Z' },
    to: { value: 'T', text: 'export samples: end of the time range, as --from.', default: 'no upper bound', example: '--to 2026-05-01T11:00:00Z' },
    columns: { value: 'LIST', text: 'export samples: the columns to write, comma-separated.', default: 'every column', example: '--columns t,power_w,sm_clock_mhz' },
    time: { value: 'FORMAT', text: 'export samples: how times are written, epoch (seconds) or iso (ISO-8601).', default: 'epoch', example: '--time iso' },
    csv: { value: 'FILE', text: 'export samples / export runs / export tune: write CSV here (units in the header; export tune: in a unit column).', example: '--csv samples.csv' },
    parquet: { value: 'FILE', text: 'export samples: write Parquet here (units in the file metadata) instead of CSV.', example: '--parquet samples.parquet' },
    out: { value: 'FILE', text: 'export json: where to write the sweep\'s caplab.export/1 JSON bundle.', example: '--out sweep-3.json' },
    'out-dir': { value: 'DIR', text: 'export analysis: the folder for the analysis tables (sweep-ID-<table>.csv).', example: '--out-dir tables' },
  },
  examples: ['caplab export samples --run 12 --csv run-12.csv', 'caplab export samples --sweep 3 --time iso --parquet sweep-3.parquet', 'caplab export runs 3 --csv runs.csv', 'caplab export tune 4 --csv tune-4.csv', 'caplab export analysis 3 --out-dir tables --overhead 150', 'caplab export json 3 --out sweep-3.json', 'caplab export analysis 3 --out-dir tables --price-csv prices-2025.csv --grid-g-per-kwh 380'],
  async run(args, io) {
    const kind = args.positionals[0];
    if (!kind || !(KINDS as readonly string[]).includes(kind)) throw new CliError(`say what to export: ${KINDS.join(', ')} (see caplab export --help)`);
    // Samples and run records are the measurements alone: a tariff there would be ignored, so it is refused.
    if ((kind === 'samples' || kind === 'runs' || kind === 'tune') && analysisOptionsOf(args).tariff) throw new CliError(`export ${kind} has no cost and carbon: the tariff flags go with export analysis and export json`);
    const req = requestOf(kind as (typeof KINDS)[number], args);
    const engine = await openEngine(args, io, { readOnly: true });
    const started = Date.now();
    let written: WrittenFile[];
    try {
      const progress = (done: number, total: number) => io.stderr.write(`caplab export: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} samples\r`);
      written = await engine.files.export(req, { progress: io.stderr.isTTY ? progress : undefined, say: (line) => io.stderr.write(`caplab export: ${line}\n`) });
    } finally {
      await engine.close();
    }
    if (kind === 'samples') {
      const f = written[0]!;
      io.stderr.write(`caplab export: ${f.rows} samples of ${f.source} -> ${f.path} (${f.bytes} bytes, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    }
    for (const f of written) if (kind !== 'samples') io.stderr.write(`caplab export: wrote ${f.path} (${f.bytes} bytes)\n`);
    if (args.values.json) printJson(io, { written });
    return 0;
  },
});
