// overlayTraces: several runs and dataset segments read in one call, each aligned at its measurement window's start
// (src/core/overlay.ts), min/max-decimated from the store's blocks, with what each did not record said.
import type { Db } from '../store/db';
import { devicesOfRun, getDevice, type StoredDevice } from '../store/devices';
import { getRun, getSweep, nextRunStart } from '../store/sweeps';
import { datasetMetrics, getDataset } from '../store/datasets';
import { metricsOfRun } from '../store/samples';
import { decimateField, streamsOf, type StreamOwner } from '../store/sample-blocks';
import { alignRun, alignSegment, rateOfSteps, recorded, runLabel, segmentLabel, shift, type Aligned } from '../../../core/overlay';
import { decimateMinMax, type XY } from '../../../core/decimate';
import { LabError } from '../../../shared/errors';
import type { Source } from '../../../shared/source';
import type { OverlayMetric, OverlaySource } from '../../../shared/overlay';
import type { MethodInput, MethodOutput } from '../../../shared/api';
import { LoadError } from './load';
import { segmentFacts } from './sources';

const METRIC_WORDS: Record<Exclude<OverlayMetric, 'throughput'>, string> = { power_w: 'power', sm_clock_mhz: 'SM clock', temp_c: 'temperature' };

type Devices = OverlaySource['devices'];

/** The GPUs of a sweep or dataset with their series over [a.from, a.to], on the overlay's axis. */
function gpuSeries(db: Db, owner: StreamOwner, a: Aligned, max: number, keys: readonly string[] | null): Devices {
  return streamsOf(db, owner)
    .map((s) => ({ s, d: getDevice(db, s.device_row) }))
    .filter((x): x is { s: (typeof x)['s']; d: StoredDevice } => x.d !== undefined && x.d.kind === 'gpu' && (keys === null || keys.includes(x.d.device_key)))
    .map(({ s, d }) => {
      const series = (f: 'power_w' | 'sm_clock_mhz' | 'temp_c') => shift(decimateField(db, s.stream_id, f, a.from, a.to, max), a.window_start);
      return { device_id: d.device_key, name: d.name, power_w: series('power_w'), sm_clock_mhz: series('sm_clock_mhz'), temp_c: series('temp_c') };
    })
    .filter((d) => d.power_w.t.length + d.sm_clock_mhz.t.length + d.temp_c.t.length > 0);
}

/** Which of power, clock and temperature no device of the source recorded (an empty plot, not a line at 0). */
function missingReadings(devices: Devices, what: string): OverlaySource['missing'] {
  return (Object.keys(METRIC_WORDS) as (keyof typeof METRIC_WORDS)[])
    .filter((m) => !devices.some((d) => recorded(d[m])))
    .map((m) => ({ metric: m, why: devices.length === 0 ? `${what} has no GPU samples` : `${what}'s samples have no ${METRIC_WORDS[m]}` }));
}

function runOverlay(db: Db, runId: number, max: number): OverlaySource {
  const run = getRun(db, runId);
  if (!run) throw new LoadError(`no run ${runId} in this database`);
  const sweep = getSweep(db, run.sweep_id)!;
  const base = { source: { kind: 'run' as const, id: runId }, label: runLabel({ sweep_id: sweep.id, sweep_name: sweep.name, workload: run.workload, cap_w: run.cap_w, repetition: run.repetition }) };
  const facts = { sweep_id: sweep.id, sweep_name: sweep.name, dataset_id: null, dataset_name: null, workload: run.workload, cap_w: run.cap_w, repetition: run.repetition, simulated: sweep.simulated, units: run.units };
  const next = nextRunStart(db, runId);
  // The cool-down waited after this run: what the adaptive plan waited, else the plan's; the next run ends it anyway.
  const cooldownS = run.adaptive?.cooldown?.waited_s ?? sweep.plan.cooldown_s;
  const coolEnd = run.ended_at === null ? next : Math.min(run.ended_at + cooldownS, next ?? Infinity);
  const a = alignRun(run, coolEnd);
  if (!a) return { ...base, ...facts, ...empty(), error: `run ${runId} never started (${run.status})` };
  // The GPUs the run measured (a cluster sweep's streams hold every node's); a run that failed before measuring
  // recorded none, and then every GPU of the sweep with samples in its span is drawn.
  const measured = devicesOfRun(db, runId).filter((d) => d.kind === 'gpu').map((d) => d.device_key);
  const devices = gpuSeries(db, { sweep_id: sweep.id }, a, max, measured.length ? measured : null);
  const rate = metricsOfRun(db, runId, 'rate');
  const throughput = shift(decimateMinMax(rate.map((r) => r.t), rate.map((r) => r.value), max), a.window_start);
  const missing = missingReadings(devices, `run ${runId}`);
  if (!recorded(throughput)) missing.push({ metric: 'throughput', why: `run ${runId}'s workload reported no throughput steps` });
  return { ...base, ...facts, window_start: a.window_start, phases: a.phases, devices, throughput, missing, error: null };
}

function segmentOverlay(db: Db, src: Extract<Source, { kind: 'segment' }>, max: number): OverlaySource {
  const { id, facts: f } = segmentFacts(db, src);
  const name = f.label ?? (id ? `segment ${id}` : 'segment');
  const dataset = getDataset(db, f.dataset_id);
  if (!dataset) throw new LoadError(`${name}: no dataset ${f.dataset_id} in this database`);
  if (!(f.end > f.start)) throw new LoadError(`${name}: its window ends (${f.end}) before it starts (${f.start})`, 'invalid');
  const a = alignSegment(f.start, f.end);
  const devices = gpuSeries(db, { dataset_id: dataset.id }, a, max, f.device_keys);
  const throughput = shift(rateOfSteps(datasetMetrics(db, dataset.id, 'units', f.start, f.end), devices.length, max), a.window_start);
  const what = id ? `segment ${id}` : name;
  const missing = missingReadings(devices, what);
  if (!recorded(throughput)) missing.push({ metric: 'throughput', why: `dataset ${dataset.id} has no work-unit records in ${what}'s window` });
  const simulated = streamsOf(db, { dataset_id: dataset.id }).some((s) => getDevice(db, s.device_row)?.simulated === 1);
  return {
    source: { kind: 'segment', id },
    label: segmentLabel({ dataset_id: dataset.id, dataset_name: dataset.name, segment: id && f.label ? `segment ${id} ${f.label}` : name, workload: f.workload, cap_w: f.cap_w }),
    sweep_id: null,
    sweep_name: null,
    dataset_id: dataset.id,
    dataset_name: dataset.name,
    workload: f.workload,
    cap_w: f.cap_w,
    repetition: f.repetition,
    simulated,
    units: f.units,
    window_start: a.window_start,
    phases: a.phases,
    devices,
    throughput,
    missing,
    error: null,
  };
}

function empty(): Pick<OverlaySource, 'window_start' | 'phases' | 'devices' | 'throughput' | 'missing'> {
  return { window_start: null, phases: [], devices: [], throughput: { t: [], v: [] } satisfies XY, missing: [] };
}

/** What a source that cannot be read answers: its error, and what names it. */
function failed(src: Source, e: LabError): OverlaySource {
  const id = src.kind === 'run' ? src.run_id : (src.segment_id ?? 0);
  return {
    source: { kind: src.kind, id },
    label: src.kind === 'run' ? `run #${id}` : `segment ${id}`,
    sweep_id: null,
    sweep_name: null,
    dataset_id: src.kind === 'segment' ? (src.dataset_id ?? null) : null,
    dataset_name: null,
    workload: null,
    cap_w: null,
    repetition: null,
    simulated: false,
    units: null,
    ...empty(),
    error: e.message,
  };
}

/** The overlay of runs and segments, in the order given; a source that cannot be read says why and the others come back. */
export function overlayTraces(db: Db, input: MethodInput<'overlayTraces'>): MethodOutput<'overlayTraces'> {
  const max = input.max_points ?? 1000;
  const sources = input.sources.map((src) => {
    try {
      return src.kind === 'run' ? runOverlay(db, src.run_id, max) : segmentOverlay(db, src, max);
    } catch (e) {
      if (e instanceof LabError) return failed(src, e);
      throw e;
    }
  });
  return { sources };
}
