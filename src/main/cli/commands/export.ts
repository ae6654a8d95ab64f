import { join, resolve } from 'node:path';
import { CliError, numberOpt, printJson, stringOpt, type CliArgs, type CliCommand, type CliIO } from '../command';
import { dbOption, jsonOption } from '../open-engine';
import { analysisOptions, analysisOptionsOf } from '../analysis-options';
import { openReadOnly } from '../read-db';
import { parseTimeArg } from './energy';
import type { Db } from '../../lab/store/db';
import { getRun, getSweep, runsOfSweep } from '../../lab/store/sweeps';
import { datasetExists } from '../../lab/store/datasets';
import { LoadError } from '../../lab/analysis/load';
import { analyzeStoredSweep } from '../../lab/analysis/analyze-stored';
import { ALL_SAMPLE_COLUMNS, type SampleSelection } from '../../lab/store/sample-stream';
import { exportSamplesCsv, exportSamplesParquet, type TimeFormat } from '../../lab/exporters/samples';
import { analysisTables, runsTable } from '../../lab/exporters/tables';
import { writeCsvTables } from '../../lab/exporters/csv';
import { datasetBundle, sweepBundle } from '../../lab/exporters/bundle';
import { ExportError, writeFileAtomic } from '../../lab/files/atomic';
import { SampleColumnName, type SampleExportColumn, type WrittenFile } from '../../../shared/export';

const KINDS = ['samples', 'runs', 'analysis', 'json'] as const;

function idOpt(args: CliArgs, name: string): number | undefined {
  const v = numberOpt(args, name);
  if (v !== undefined && (!Number.isInteger(v) || v <= 0)) throw new CliError(`--${name} must be a positive whole number (see \`caplab runs\`)`);
  return v;
}

function sweepIdOf(args: CliArgs, db: Db): number {
  const text = args.positionals[1];
  if (!text || args.positionals.length > 2) throw new CliError(`expected one SWEEP_ID after "${args.positionals[0]}"`);
  const id = Number(text);
  if (!Number.isInteger(id) || id <= 0) throw new CliError(`SWEEP_ID must be a positive whole number, got "${text}"`);
  if (!getSweep(db, id)) throw new CliError(`no sweep ${id} in this database (see \`caplab runs\`)`);
  return id;
}

function required(args: CliArgs, name: string, what: string): string {
  const v = stringOpt(args, name);
  if (!v) throw new CliError(`--${name} FILE is required: ${what}`);
  return v;
}

function columnsOf(args: CliArgs): SampleExportColumn[] {
  const text = stringOpt(args, 'columns');
  if (!text) return [...ALL_SAMPLE_COLUMNS];
  const cols = text.split(',').map((c) => c.trim()).filter(Boolean);
  for (const c of cols) if (!SampleColumnName.safeParse(c).success) throw new CliError(`--columns: unknown column "${c}"; choose from ${ALL_SAMPLE_COLUMNS.join(', ')}`);
  return cols as SampleExportColumn[];
}

async function exportSamples(args: CliArgs, io: CliIO, db: Db): Promise<WrittenFile[]> {
  const sel: SampleSelection = { runId: idOpt(args, 'run'), sweepId: idOpt(args, 'sweep'), datasetId: idOpt(args, 'dataset') };
  if (sel.runId === undefined && sel.sweepId === undefined && sel.datasetId === undefined && stringOpt(args, 'from') === undefined) {
    throw new CliError('choose the samples: --run ID, --sweep ID, --dataset ID and/or --from T --to T');
  }
  if (sel.runId !== undefined && !getRun(db, sel.runId)) throw new CliError(`no run ${sel.runId} in this database`);
  if (sel.sweepId !== undefined && !getSweep(db, sel.sweepId)) throw new CliError(`no sweep ${sel.sweepId} in this database`);
  if (sel.datasetId !== undefined && !datasetExists(db, sel.datasetId)) throw new CliError(`no dataset ${sel.datasetId} in this database`);
  if (stringOpt(args, 'from') !== undefined) sel.from = parseTimeArg('from', stringOpt(args, 'from'));
  if (stringOpt(args, 'to') !== undefined) sel.to = parseTimeArg('to', stringOpt(args, 'to'));
  const device = numberOpt(args, 'device');
  if (device !== undefined) sel.deviceIndex = device;
  const time = (stringOpt(args, 'time') ?? 'epoch') as TimeFormat;
  if (time !== 'epoch' && time !== 'iso') throw new CliError(`--time must be epoch or iso, got "${time}"`);
  const csv = stringOpt(args, 'csv');
  const parquet = stringOpt(args, 'parquet');
  if (!csv === !parquet) throw new CliError('give one of --csv FILE or --parquet FILE');
  const what = sel.runId !== undefined ? `run ${sel.runId}` : sel.sweepId !== undefined ? `sweep ${sel.sweepId}` : sel.datasetId !== undefined ? `dataset ${sel.datasetId}` : 'time range';
  const started = Date.now();
  const progress = (done: number, total: number) => io.stderr.write(`caplab export: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} samples\r`);
  const o = { selection: sel, columns: columnsOf(args), time, progress: io.stderr.isTTY ? progress : undefined };
  const r = csv ? await exportSamplesCsv(db, csv, o) : await exportSamplesParquet(db, parquet!, o);
  const s = (Date.now() - started) / 1000;
  io.stderr.write(`caplab export: ${r.rows} samples of ${what} -> ${r.path} (${r.bytes} bytes, ${s.toFixed(1)} s)\n`);
  return [{ kind: csv ? 'csv' : 'parquet', path: r.path, bytes: r.bytes, rows: r.rows, source: what }];
}

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'Export samples (CSV, Parquet), run summaries and analysis tables (CSV), or a whole sweep or dataset (JSON)',
  usage: [
    'export samples (--run ID|--sweep ID|--dataset ID|--from T --to T) [--device N] [--columns a,b] [--time epoch|iso] (--csv FILE|--parquet FILE)',
    '       caplab export runs SWEEP_ID --csv FILE',
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
  async run(args, io) {
    const kind = args.positionals[0];
    if (!kind || !(KINDS as readonly string[]).includes(kind)) throw new CliError(`say what to export: ${KINDS.join(', ')} (see caplab export --help)`);
    // Samples and run records are the measurements alone: a tariff there would be ignored, so it is refused.
    if ((kind === 'samples' || kind === 'runs') && analysisOptionsOf(args).tariff) throw new CliError(`export ${kind} has no cost and carbon: the tariff flags go with export analysis and export json`);
    const db = openReadOnly(args, io);
    let written: WrittenFile[];
    try {
      if (kind === 'samples') written = await exportSamples(args, io, db);
      else if (kind === 'json' && args.values.dataset !== undefined) {
        if (args.positionals.length > 1) throw new CliError('give either SWEEP_ID or --dataset ID, not both');
        const id = idOpt(args, 'dataset')!;
        if (!datasetExists(db, id)) throw new CliError(`no dataset ${id} in this database (see \`caplab datasets\`)`);
        const out = required(args, 'out', 'where to write the JSON');
        io.stderr.write(`caplab export: collecting dataset ${id}…\n`);
        written = [{ kind: 'json', path: resolve(out), bytes: await writeFileAtomic(out, JSON.stringify(datasetBundle(db, id, analysisOptionsOf(args).tariff))), rows: null, source: `dataset ${id}` }];
      } else {
        const id = sweepIdOf(args, db);
        const source = `sweep ${id}`;
        if (kind === 'runs') written = await writeCsvTables([{ path: required(args, 'csv', 'where to write the run summaries'), table: runsTable(runsOfSweep(db, id)) }], source);
        else if (kind === 'analysis') {
          const dir = required(args, 'out-dir', 'the folder for the analysis tables');
          const tables = analysisTables(analyzeStoredSweep(db, id, analysisOptionsOf(args)).result);
          written = await writeCsvTables(Object.entries(tables).map(([stem, table]) => ({ path: join(dir, `sweep-${id}-${stem}.csv`), table })), source);
        } else {
          const out = required(args, 'out', 'where to write the JSON');
          io.stderr.write(`caplab export: collecting sweep ${id}…\n`);
          const text = JSON.stringify(sweepBundle(db, id, analysisOptionsOf(args).tariff));
          written = [{ kind: 'json', path: resolve(out), bytes: await writeFileAtomic(out, text), rows: null, source }];
        }
      }
    } catch (e) {
      if (e instanceof ExportError || e instanceof LoadError) throw new CliError(e.message);
      throw e;
    } finally {
      db.close();
    }
    for (const f of written) if (kind !== 'samples') io.stderr.write(`caplab export: wrote ${f.path} (${f.bytes} bytes)\n`);
    if (args.values.json) printJson(io, { written });
    return 0;
  },
};
