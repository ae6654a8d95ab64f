// Sources (runs and dataset segments) -> analysis input. A segment becomes an analysis run like any CapLab run:
// its window, its devices' series from the dataset's streams, its cap (given, else the limit the samples report),
// its work units (given, else the dataset's 'units' metrics in the window).
import type { Db } from '../store/db';
import { counterLagOf } from '../../../core/import';
import { getDevice, devicesOfRun, type StoredDevice } from '../store/devices';
import { getRun, getSweep } from '../store/sweeps';
import { datasetMetrics, getDataset, getSegment } from '../store/datasets';
import { readSamples, streamsOf, type ReadSamples } from '../store/sample-blocks';
import { LoadError, modelOf, runInput, sweepModelOf } from './load';
import { SegmentFacts, type Source } from '../../../shared/source';
import type { AnalysisInputRaw, AnalysisRunInput } from '../../../shared/analysis';

/** Seconds of samples read beyond a segment's edges (energy interpolates across the window edges). */
const PAD_S = 5;

function runSourceInput(db: Db, runId: number): AnalysisRunInput {
  const run = getRun(db, runId);
  if (!run) throw new LoadError(`no run ${runId} in this database`);
  const sweep = getSweep(db, run.sweep_id)!;
  const devs = devicesOfRun(db, runId);
  return runInput(db, sweep, run, devs, sweepModelOf(sweep, [devs]));
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** A segment source's facts: the stored segment's with the inline fields over them (LoadError: no such segment). */
export function segmentFacts(db: Db, src: Extract<Source, { kind: 'segment' }>): { id: number; facts: SegmentFacts } {
  const { kind: _kind, segment_id, ...inline } = src;
  const defined = Object.fromEntries(Object.entries(inline).filter(([, v]) => v !== undefined));
  if (segment_id === undefined) return { id: 0, facts: SegmentFacts.parse(defined) };
  const stored = getSegment(db, segment_id);
  if (!stored) throw new LoadError(`no dataset segment ${segment_id} in this database`);
  const { id, ...facts } = stored;
  return { id, facts: SegmentFacts.parse({ ...facts, ...defined }) };
}

function segmentInput(db: Db, src: Extract<Source, { kind: 'segment' }>, position: number, read: ReadSamples): AnalysisRunInput {
  const { id, facts: f } = segmentFacts(db, src);
  const name = f.label ?? (id ? `segment ${id}` : `segment #${position + 1}`);
  const dataset = getDataset(db, f.dataset_id);
  if (!dataset) throw new LoadError(`${name}: no dataset ${f.dataset_id} in this database`);
  if (!(f.end > f.start)) throw new LoadError(`${name}: its window ends (${f.end}) before it starts (${f.start})`, 'invalid');
  const streams = streamsOf(db, { dataset_id: f.dataset_id }).map((s) => ({ ...s, device: getDevice(db, s.device_row)! }));
  const chosen = f.device_keys ? streams.filter((s) => f.device_keys!.includes(s.device.device_key)) : streams;
  const missing = (f.device_keys ?? []).filter((k) => !streams.some((s) => s.device.device_key === k));
  if (missing.length) throw new LoadError(`${name}: dataset ${f.dataset_id} has no samples of ${missing.join(', ')}`);
  const series = (s: (typeof streams)[number]) => ({
    device_id: s.device.device_key,
    name: s.device.name,
    samples: read(db, s.stream_id, f.start - PAD_S, f.end + PAD_S),
    counter_lag_s: counterLagOf(s.device.backend),
  });
  const gpus = chosen.filter((s) => s.device.kind === 'gpu').map(series).filter((d) => d.samples.length > 0);
  const cpu = chosen.filter((s) => s.device.kind === 'cpu').map(series).filter((d) => d.samples.length > 0);
  if (gpus.length === 0) {
    // A node-level series (GPU + CPU summed over nodes) is no GPU power: per-cap curves of it would mix in the CPUs.
    const other = chosen.find((s) => s.device.kind === 'node' || s.device.kind === 'facility');
    throw new LoadError(`${name}: no GPU samples in its window of dataset ${f.dataset_id}${other ? ` (its power is ${other.device.kind}-level, GPU + CPU: caplab energy --dataset gives its energy)` : ''}`);
  }
  const limits = gpus.flatMap((d) => d.samples.filter((x) => x.t >= f.start && x.t <= f.end && x.limit_w !== null).map((x) => x.limit_w!));
  const cap = f.cap_w ?? median(limits);
  if (cap === null) throw new LoadError(`${name}: no cap_w given and its samples report no power limit`, 'invalid');
  const steps = datasetMetrics(db, f.dataset_id, 'units', f.start, f.end).map((m) => ({ t: m.t, units: m.value, dt: null }));
  const devices: StoredDevice[] = chosen.filter((s) => s.device.kind === 'gpu').map((s) => s.device);
  return {
    run_id: -(id || position + 1),
    source: { kind: 'segment', id },
    workload: f.workload ?? dataset.name,
    device_model: modelOf(devices) ?? 'unknown device',
    cap_w: cap,
    repetition: f.repetition,
    order: null,
    status: 'done',
    started_at: f.start,
    warmup_end: f.start,
    window: { start: f.start, end: f.end },
    units: f.units,
    units_in_window: f.units_in_window,
    steps,
    gpus: gpus.length,
    devices: gpus,
    cpu,
    enforced_limit_w: null,
  };
}

/**
 * Sources as one analysis input, in the order given. Throws LoadError naming the source that cannot be read. `read`
 * reads the segments' samples (a caller that has read them already hands over its memo).
 */
export function loadSources(db: Db, sources: readonly Source[], opts: { name?: string | null; overhead_w?: number | null; read?: ReadSamples } = {}): AnalysisInputRaw {
  if (sources.length === 0) throw new LoadError('no sources to analyse', 'invalid');
  const runs = sources.map((s, i) => (s.kind === 'run' ? runSourceInput(db, s.run_id) : segmentInput(db, s, i, opts.read ?? readSamples)));
  return { sweep_id: null, name: opts.name ?? null, runs, overhead_w: opts.overhead_w ?? null };
}
