// What the datasets slice's calls do beyond one store call (importDataset, getDatasetTrace, saveSegment: datasets/
// service.ts serves the slice with them), and the error every dataset request throws.
import { cutText } from '../../../shared/format';
import { LabError } from '../../../shared/errors';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { checkZone, localZone } from '../../../core/import/time';
import type { MethodInput, MethodOutput } from '../../../shared/api';
import type { Db } from '../store/db';
import { datasetRecord, deleteSegment, devicesOfDataset, insertSegment, updateSegment, datasetSegments } from '../store/dataset-records';
import { decimateField, streamsOf } from '../store/sample-blocks';
import { importPaths, type ImportProgress } from './importer';

/** A dataset request that cannot be met: bad input (invalid) or no such dataset/segment (not_found). */
export class DatasetError extends LabError {
  constructor(message: string, code: 'invalid' | 'not_found' = 'invalid') {
    super(code, message);
    this.name = 'DatasetError';
  }
}

export async function importDataset(db: Db, input: MethodInput<'importDataset'>, onProgress: (p: ImportProgress) => void): Promise<MethodOutput<'importDataset'>> {
  let zone: string;
  try {
    zone = checkZone(input.tz ?? localZone());
  } catch {
    throw new DatasetError(`unknown time zone "${cutText(String(input.tz))}"`);
  }
  const paths = [...(input.paths ?? [])];
  const shown = new Map(Object.entries(input.display_names ?? {}));
  let tmp: string | null = null;
  if (input.files?.length) {
    // Files dropped on the browser host arrive as text: staged in a private temp dir under their own names.
    tmp = mkdtempSync(join(tmpdir(), 'caplab-upload-'));
    for (const f of input.files) {
      const p = join(tmp, basename(f.name) || 'upload');
      writeFileSync(p, f.text);
      paths.push(p);
      shown.set(p, f.name);
    }
  }
  if (paths.length === 0) throw new DatasetError('nothing to import: give paths or files');
  try {
    const out = await importPaths(db, paths, { format: input.format ?? 'auto', zone, fields: input.fields, interval_s: input.interval_s, name: input.name ?? (input.files?.length === 1 ? input.files[0]!.name : undefined), onProgress, shownAs: (p) => shown.get(p) ?? p });
    return { dataset: out.dataset, duplicate_of: out.duplicate_of, reports: out.reports, sweeps: out.sweeps, datasets: out.datasets };
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

export function datasetTrace(db: Db, input: MethodInput<'getDatasetTrace'>): MethodOutput<'getDatasetTrace'> {
  const ds = datasetRecord(db, input.dataset_id);
  if (!ds) throw new DatasetError(`dataset ${input.dataset_id} not found`, 'not_found');
  const from = input.from ?? ds.t_start ?? 0;
  const to = input.to ?? ds.t_end ?? 0;
  const max = input.max_points ?? 2000;
  const devs = new Map(devicesOfDataset(db, ds.id).map((d) => [d.row, d]));
  // Only the dataset's own devices are its series (as for its energy): a stream written under another host's
  // device is left out rather than failing the whole trace.
  const devices = streamsOf(db, { dataset_id: ds.id }).flatMap((s) => {
    const d = devs.get(s.device_row);
    if (!d) return [];
    return {
      device_id: d.key,
      name: d.name,
      kind: d.kind,
      power_w: decimateField(db, s.stream_id, 'power_w', from, to, max),
      util_gpu: decimateField(db, s.stream_id, 'util_gpu', from, to, max),
      sm_clock_mhz: decimateField(db, s.stream_id, 'sm_clock_mhz', from, to, max),
      temp_c: decimateField(db, s.stream_id, 'temp_c', from, to, max),
    };
  });
  return { dataset_id: ds.id, from, to, devices };
}

export function saveSegment(db: Db, input: MethodInput<'saveSegment'>): MethodOutput<'saveSegment'> {
  const ds = datasetRecord(db, input.dataset_id);
  if (!ds) throw new DatasetError(`dataset ${input.dataset_id} not found`, 'not_found');
  const { dataset_id, segment_id, delete: del, ...facts } = input;
  if (facts.start !== undefined && facts.end !== undefined && !(facts.end > facts.start)) throw new DatasetError('a segment must end after it starts');
  if (segment_id !== undefined) {
    const ok = del ? deleteSegment(db, dataset_id, segment_id) : updateSegment(db, dataset_id, segment_id, facts);
    if (!ok) throw new DatasetError(`segment ${segment_id} of dataset ${dataset_id} not found`, 'not_found');
  } else {
    if (facts.start === undefined || facts.end === undefined) throw new DatasetError('a new segment needs start and end');
    insertSegment(db, dataset_id, { ...facts, start: facts.start, end: facts.end, origin: facts.origin ?? 'brush' });
  }
  return { segments: datasetSegments(db, dataset_id) };
}
