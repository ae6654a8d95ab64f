// The datasets slice (src/shared/api/datasets.ts): importing files as datasets (importPaths, also `caplab import`'s
// door), previewing an import, the stored datasets, their traces, segments and analysis.
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import { ImportError } from '../../../core/import';
import { ImportFormat } from '../../../shared/dataset';
import type { EngineContext } from '../engine-context';
import { datasetRecord, datasetRecords, removeDataset } from '../store/dataset-records';
import { analyzeDataset } from './analysis';
import { importPaths, type ImportOptions, type ImportOutcome } from './importer';
import { previewImport } from './preview';
import { DatasetError, datasetTrace, importDataset, saveSegment } from './requests';

export class DatasetsService implements SliceApi<'datasets'> {
  constructor(private readonly ctx: EngineContext) {}

  /** A dataset's segments with their energy and the sweep analysis of those that carry a cap and units. */
  async analyzeDataset(input: MethodInput<'analyzeDataset'>): Promise<MethodOutput<'analyzeDataset'>> {
    const { dataset_id, ...opts } = input;
    return analyzeDataset(this.ctx.db, dataset_id, { ...opts, overhead_w: opts.overhead_w ?? null });
  }

  /** Imports files or directory trees on this machine as one dataset (`caplab import`). */
  importPaths(paths: readonly string[], opts: ImportOptions): Promise<ImportOutcome> {
    this.ctx.writable('import');
    return importPaths(this.ctx.db, paths, opts);
  }

  async listDatasets(_input: MethodInput<'listDatasets'>): Promise<MethodOutput<'listDatasets'>> {
    return datasetRecords(this.ctx.db);
  }

  async getDataset(input: MethodInput<'getDataset'>): Promise<MethodOutput<'getDataset'>> {
    const d = datasetRecord(this.ctx.db, input.dataset_id);
    if (!d) throw new DatasetError(`no dataset ${input.dataset_id} in this database`, 'not_found');
    return d;
  }

  async deleteDataset(input: MethodInput<'deleteDataset'>): Promise<MethodOutput<'deleteDataset'>> {
    this.ctx.writable('delete a dataset');
    return { deleted: removeDataset(this.ctx.db, input.dataset_id) };
  }

  async importDataset(input: MethodInput<'importDataset'>): Promise<MethodOutput<'importDataset'>> {
    this.ctx.writable('import');
    try {
      return await importDataset(this.ctx.db, input, (p) =>
        this.ctx.emit('import.progress', { import_id: input.import_id, file: p.file, files_done: p.files_done, files_total: p.files_total, fraction: p.bytes_total ? p.bytes_done / p.bytes_total : 1, samples: p.samples }),
      );
    } catch (e) {
      // The page picks a format where the CLI names --format: the call says what it takes.
      if (e instanceof ImportError && e.need === 'format') throw new DatasetError(`cannot import ${e.file}: no importer recognises this file; choose its format (one of ${ImportFormat.options.join(', ')})`);
      if (e instanceof ImportError) throw new DatasetError(`cannot import ${e.message}`);
      throw e;
    }
  }

  /** Reads nothing into the store: the first rows of each file as the import would read them (no write lock). */
  async previewImport(input: MethodInput<'previewImport'>): Promise<MethodOutput<'previewImport'>> {
    return previewImport(input);
  }

  async getDatasetTrace(input: MethodInput<'getDatasetTrace'>): Promise<MethodOutput<'getDatasetTrace'>> {
    return datasetTrace(this.ctx.db, input);
  }

  async saveSegment(input: MethodInput<'saveSegment'>): Promise<MethodOutput<'saveSegment'>> {
    this.ctx.writable('save a segment');
    return saveSegment(this.ctx.db, input);
  }
}
