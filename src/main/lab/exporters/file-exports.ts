// Exports written to files the caller names (`caplab export`): samples as CSV or Parquet, run summaries, a tuning
// session's outcome and analysis tables as CSV, a whole sweep or dataset as a JSON bundle. The checks of what is
// asked (does the run exist, one file format) live here, so every face that writes files gets the same answers and
// messages.
import { join, resolve } from 'node:path';
import type { Db } from '../store/db';
import { getRun, getSweep, runsOfSweep } from '../store/sweeps';
import { datasetExists } from '../store/datasets';
import type { SampleSelection } from '../store/sample-stream';
import { analyzeStoredSweep } from '../analysis/analyze-stored';
import type { CostedAnalysisOptions } from '../analysis/cost';
import { exportSamplesCsv, exportSamplesParquet, type TimeFormat } from './samples';
import { analysisTables, runsTable } from './tables';
import { writeCsvTables } from './csv';
import { tuneTable } from './tune-table';
import { datasetBundle, sweepBundle } from './bundle';
import { ExportError, writeFileAtomic } from '../files/atomic';
import { LoadError } from '../analysis/load';
import type { CostTariffInput } from '../../../shared/cost';
import type { SampleExportColumn, WrittenFile } from '../../../shared/export';

export type FileExport =
  | { kind: 'samples'; selection: SampleSelection; columns: readonly SampleExportColumn[]; time: TimeFormat; csv?: string; parquet?: string }
  | { kind: 'runs'; sweep_id: number; csv: string }
  | { kind: 'tune'; sweep_id: number; csv: string }
  | { kind: 'analysis'; sweep_id: number; out_dir: string; analysis: CostedAnalysisOptions }
  | { kind: 'json'; sweep_id: number; out: string; tariff?: CostTariffInput }
  | { kind: 'json'; dataset_id: number; out: string; tariff?: CostTariffInput };

export interface FileExportHooks {
  /** Samples exports: rows done and (about) the total, every few hundred thousand rows. */
  progress?: (done: number, total: number) => void;
  /** A line for the user before a step that takes a while ("collecting sweep 3…"). */
  say?: (line: string) => void;
}

const sweepSource = (id: number) => `sweep ${id}`;

function needSweep(db: Db, id: number): void {
  if (!getSweep(db, id)) throw new LoadError(`no sweep ${id} in this database (see \`caplab runs\`)`);
}

function selectionWords(sel: SampleSelection): string {
  if (sel.runId !== undefined) return `run ${sel.runId}`;
  if (sel.sweepId !== undefined) return sweepSource(sel.sweepId);
  if (sel.datasetId !== undefined) return `dataset ${sel.datasetId}`;
  return 'time range';
}

async function writeSamples(db: Db, req: Extract<FileExport, { kind: 'samples' }>, hooks: FileExportHooks): Promise<WrittenFile[]> {
  const sel = req.selection;
  if (sel.runId === undefined && sel.sweepId === undefined && sel.datasetId === undefined && sel.from === undefined) {
    throw new ExportError('choose the samples: --run ID, --sweep ID, --dataset ID and/or --from T --to T');
  }
  if (sel.runId !== undefined && !getRun(db, sel.runId)) throw new LoadError(`no run ${sel.runId} in this database`);
  if (sel.sweepId !== undefined && !getSweep(db, sel.sweepId)) throw new LoadError(`no sweep ${sel.sweepId} in this database`);
  if (sel.datasetId !== undefined && !datasetExists(db, sel.datasetId)) throw new LoadError(`no dataset ${sel.datasetId} in this database`);
  if (!req.csv === !req.parquet) throw new ExportError('give one of --csv FILE or --parquet FILE');
  const o = { selection: sel, columns: req.columns, time: req.time, progress: hooks.progress };
  const r = req.csv ? await exportSamplesCsv(db, req.csv, o) : await exportSamplesParquet(db, req.parquet!, o);
  return [{ kind: req.csv ? 'csv' : 'parquet', path: r.path, bytes: r.bytes, rows: r.rows, source: selectionWords(sel) }];
}

async function writeJson(out: string, text: () => string, source: string): Promise<WrittenFile[]> {
  return [{ kind: 'json', path: resolve(out), bytes: await writeFileAtomic(out, text()), rows: null, source }];
}

/** Writes what is asked. Throws LoadError for a sweep, run or dataset that is not there, ExportError for a bad request. */
export async function writeFileExport(db: Db, req: FileExport, hooks: FileExportHooks = {}): Promise<WrittenFile[]> {
  if (req.kind === 'samples') return writeSamples(db, req, hooks);
  if (req.kind === 'json' && 'dataset_id' in req) {
    if (!datasetExists(db, req.dataset_id)) throw new LoadError(`no dataset ${req.dataset_id} in this database (see \`caplab datasets\`)`);
    hooks.say?.(`collecting dataset ${req.dataset_id}…`);
    return writeJson(req.out, () => JSON.stringify(datasetBundle(db, req.dataset_id, req.tariff)), `dataset ${req.dataset_id}`);
  }
  needSweep(db, req.sweep_id);
  const source = sweepSource(req.sweep_id);
  if (req.kind === 'runs') return writeCsvTables([{ path: req.csv, table: runsTable(runsOfSweep(db, req.sweep_id)) }], source);
  if (req.kind === 'tune') return writeCsvTables([{ path: req.csv, table: tuneTable(db, req.sweep_id) }], source);
  if (req.kind === 'analysis') {
    const tables = analysisTables(analyzeStoredSweep(db, req.sweep_id, req.analysis).result);
    return writeCsvTables(Object.entries(tables).map(([stem, table]) => ({ path: join(req.out_dir, `sweep-${req.sweep_id}-${stem}.csv`), table })), source);
  }
  hooks.say?.(`collecting sweep ${req.sweep_id}…`);
  return writeJson(req.out, () => JSON.stringify(sweepBundle(db, req.sweep_id, req.tariff)), source);
}
