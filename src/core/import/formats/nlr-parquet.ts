// NLR dataset aggregated profiles (DOI 10.7799/3025227, 01_aggregated_datasets/<workload>/results/NNNNNN.parquet):
// `power[W]` (GPU + CPU, summed over the job's nodes) indexed by `timestep[s]` (0.2 s training, 0.1 s inference).
// Read one row group at a time through hyparquet's column scan, so a file never sits in memory as JS objects.
// The profiles have no wall clock: each file is placed at `t0` on the dataset's time axis (clock 'relative').
import { parquetMetadataAsync, parquetScan, parquetSchema, type AsyncBuffer } from 'hyparquet';
import { BatchBuilder, type ColumnBatch } from '../batch';
import type { ParseResult } from '../parser';
import { ImportError, ReportBuilder } from '../report';
import type { ImportReport } from '../../../shared/dataset';
import type { FormatModule } from '../format-module';

export const NLR_TIME = 'timestep[s]';
export const NLR_POWER = 'power[W]';

export interface NlrParquetOptions {
  file: string;
  /** The workload directory's name: the device (one aggregated "node" series per workload). */
  workload: string;
  /** Where the profile's timestep 0 goes on the dataset's time axis, s. */
  t0: number;
  /** The segment's name (workload, file number and its metadata.csv row). */
  label: string;
  emit: (batch: ColumnBatch) => void;
  /** Called with the report once its device is registered, before the first batch. */
  onReport?: (report: ImportReport) => void;
  /** Share of the file's rows read so far, after each row group. */
  onFraction?: (fraction: number) => void;
  batchRows?: number;
}

export async function readNlrParquet(buf: AsyncBuffer, o: NlrParquetOptions): Promise<ParseResult> {
  const rep = new ReportBuilder('nlr-parquet', o.file);
  rep.r.clock = 'relative';
  let scan;
  let total: number;
  try {
    const metadata = await parquetMetadataAsync(buf);
    const names = parquetSchema(metadata).children.map((c) => c.element.name);
    if (!names.includes(NLR_TIME) || !names.includes(NLR_POWER))
      throw new ImportError(o.file, null, `not an NLR aggregated profile: expected columns ${NLR_TIME} and ${NLR_POWER}, found ${names.join(', ') || 'none'}`);
    scan = await parquetScan({ file: buf, metadata, columns: [NLR_TIME, NLR_POWER] });
    total = Number(metadata.num_rows);
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError(o.file, null, `unreadable Parquet (truncated or not Parquet?): ${(e as Error).message}`);
  }
  const dev = rep.device(`node:${o.workload}`, { kind: 'node', index: null, name: o.workload, uuid: null, pci_bus_id: null });
  rep.column({ source: NLR_POWER, channel: 'power_avg_w', unit: 'W', sensor_kind: 'average', note: 'GPU (NVML power, a 1 s average on H100) + CPU (RAPL) summed over the nodes, per timestep' });
  o.onReport?.(rep.r);
  const out = new BatchBuilder(o.emit, o.batchRows);
  for (const r of scan.ranges) {
    let ts: ArrayLike<unknown>;
    let ps: ArrayLike<unknown>;
    try {
      ts = await scan.readColumn({ column: NLR_TIME, rowStart: r.rowStart, rowEnd: r.rowEnd });
      ps = await scan.readColumn({ column: NLR_POWER, rowStart: r.rowStart, rowEnd: r.rowEnd });
    } catch (e) {
      throw new ImportError(o.file, null, `unreadable Parquet row group at rows ${r.rowStart + 1}-${r.rowEnd}: ${(e as Error).message}`);
    }
    if (ts.length !== ps.length) throw new ImportError(o.file, null, `row group at rows ${r.rowStart + 1}-${r.rowEnd}: ${ts.length} timesteps but ${ps.length} power values`);
    for (let k = 0; k < ts.length; k++) {
      const line = r.rowStart + k + 1;
      const t = Number(ts[k]);
      const p = ps[k] === null ? NaN : Number(ps[k]);
      if (!Number.isFinite(t)) {
        rep.skip(line, `${NLR_TIME} is not a number`);
        continue;
      }
      if (!Number.isFinite(p)) {
        rep.skip(line, `${NLR_POWER} is not a number`);
        continue;
      }
      const i = out.row(o.t0 + t, dev);
      out.set(i, 'power_avg_w', p);
      rep.commit(out, i, line, o.t0 + t, dev);
    }
    o.onFraction?.(total > 0 ? r.rowEnd / total : 1);
  }
  out.flush();
  if (rep.r.rows_read === 0) throw new ImportError(o.file, null, 'no readable rows');
  return { report: rep.r, segments: [{ name: o.label, start: rep.r.t_start!, end: rep.r.t_end!, workload: o.workload }] };
}

export const nlrParquetFormat: FormatModule<'nlr-parquet'> = {
  format: 'nlr-parquet',
  // Only a file named .parquet: other Parquet files are not guessed to be NLR profiles.
  detect: [{ content: 'parquet', priority: 10, test: ({ name }) => /\.parquet$/i.test(name) }],
  reader: { kind: 'parquet-profiles' },
};
