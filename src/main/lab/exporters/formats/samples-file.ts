// Every sample of a sweep or dataset, through the streaming exporters (to a temp file), then as bytes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSamplesCsv, exportSamplesParquet } from '../samples';
import { ExportError } from '../../files/atomic';
import { ALL_SAMPLE_COLUMNS, type SampleSelection } from '../../store/sample-stream';
import type { ExportJob, ExportWriter } from './writer';

type Streamer = typeof exportSamplesCsv | typeof exportSamplesParquet;

function samplesWriter(stream: Streamer, ext: string): ExportWriter {
  return async ({ db, subject, progress }: ExportJob) => {
    if (subject.kind === 'compare') throw new ExportError('samples are exported of one sweep or dataset');
    const selection: SampleSelection = subject.kind === 'dataset' ? { datasetId: subject.dataset_id } : { sweepId: subject.sweep_id };
    const dir = await mkdtemp(join(tmpdir(), 'caplab-export-'));
    try {
      const path = join(dir, `samples.${ext}`);
      await stream(db, path, { selection, columns: ALL_SAMPLE_COLUMNS, time: 'epoch', progress });
      return { suffix: '-samples', data: await readFile(path) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

export const samplesCsv = samplesWriter(exportSamplesCsv, 'csv');
export const samplesParquet = samplesWriter(exportSamplesParquet, 'parquet');
