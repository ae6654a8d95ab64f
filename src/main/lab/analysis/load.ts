import { LabError, type ErrorCode } from '../../../shared/errors';
// Store rows -> analysis input (src/shared/analysis.ts). Reads through the store's public functions only.
import type { Db } from '../store/db';
import { devicesOfRun, listStoredDevices, type StoredDevice } from '../store/devices';
import { metricsOfRun, recordingsInRange, samplesInRange, samplesOfRun } from '../store/samples';
import { getSweep, runsOfSweep } from '../store/sweeps';
import { readSamples, type ReadSamples } from '../store/sample-blocks';
import { scheduleRuns } from '../../../core/schedule';
import type { AdaptiveSettings, AnalysisInputRaw, AnalysisRunInput, RangeEnergy, TimeWindow } from '../../../shared/analysis';
import type { RunRecord, SweepRecord } from '../../../shared/records';
import { windowEnergy } from '../../../core/analysis/energy';

/** Recorded data that cannot be read for analysis: not there (not_found) or unusable as asked (invalid). */
export class LoadError extends LabError {
  constructor(message: string, code: ErrorCode = 'not_found') {
    super(code, message);
    this.name = 'LoadError';
  }
}

export function modelOf(devs: readonly StoredDevice[]): string | null {
  const gpus = devs.filter((d) => d.kind === 'gpu');
  if (gpus.length === 0) return null;
  const names = [...new Set(gpus.map((d) => (d.simulated && !/simulated/i.test(d.name) ? `${d.name} (simulated)` : d.name)))];
  return names.join(' + ');
}

/** Throughput steps from the run's metrics: 'units' per step and 'rate' (units/s per GPU) at the same t. */
/** The model a sweep ran on, for runs that recorded no device. */
export function sweepModelOf(sweep: SweepRecord, devsOfRuns: readonly (readonly StoredDevice[])[]): string {
  const models = devsOfRuns.map(modelOf).filter((m): m is string => m !== null);
  return models[0] ?? (sweep.simulated ? 'simulated device' : 'unknown device');
}

function stepsOf(db: Db, runId: number, gpus: number): { t: number; units: number; dt: number | null }[] {
  const rates = new Map(metricsOfRun(db, runId, 'rate').map((m) => [m.t, m.value]));
  return metricsOfRun(db, runId, 'units').map((u) => {
    const rate = rates.get(u.t);
    // rate is per GPU over the step: dt = units / (rate * gpus)
    return { t: u.t, units: u.value, dt: rate !== undefined && rate > 0 ? u.value / (rate * gpus) : null };
  });
}

export interface LoadedSweep {
  sweep: SweepRecord;
  input: AnalysisInputRaw;
  /** The plan's adaptive settings (caps: {adaptive}), with the refinement runs already spent; null otherwise. */
  adaptive: AdaptiveSettings | null;
  warnings: string[];
}

/** One stored run as analysis input (warm-up included in its series, for steady-state detection). */
export function runInput(db: Db, sweep: SweepRecord, r: RunRecord, devs: readonly StoredDevice[], fallbackModel: string): AnalysisRunInput {
  const gpuDevs = devs.filter((d) => d.kind === 'gpu');
  const cpuDevs = devs.filter((d) => d.kind === 'cpu');
  const gpus = Math.max(1, gpuDevs.length || sweep.plan.devices.length);
  const window: TimeWindow | null = r.measure_start !== null && r.measure_end !== null ? { start: r.measure_start, end: r.measure_end } : null;
  const series = (d: StoredDevice) => ({ device_id: d.device_key, name: d.name, samples: samplesOfRun(db, r.id, d.id) });
  return {
    run_id: r.id,
    source: { kind: 'run', id: r.id },
    workload: r.workload,
    device_model: modelOf(devs) ?? fallbackModel,
    cap_w: r.cap_w,
    repetition: r.repetition,
    order: r.order,
    status: r.status,
    started_at: r.started_at,
    warmup_end: r.warmup_end,
    window,
    units: r.units,
    // The runner's own count over the window, else the steps below.
    units_in_window: r.units_in_window,
    steps: stepsOf(db, r.id, gpus),
    gpus,
    devices: gpuDevs.map(series),
    cpu: cpuDevs.map(series),
    enforced_limit_w: r.enforced_limit_w,
  };
}

/**
 * A recorded sweep as analysis input: every run with its measurement window, work units, per-GPU sample series
 * (warm-up included, for steady-state detection), CPU series where a CPU package was recorded, and the limit the
 * device reported. Throws LoadError when the sweep does not exist.
 */
export function loadSweepInput(db: Db, sweepId: number): LoadedSweep {
  const sweep = getSweep(db, sweepId);
  if (!sweep) throw new LoadError(`no sweep ${sweepId} in this database`);
  const records = runsOfSweep(db, sweepId);
  const warnings: string[] = [];
  const perRun = records.map((r) => ({ r, devs: devicesOfRun(db, r.id) }));
  const fallbackModel = sweepModelOf(sweep, perRun.map((x) => x.devs));
  const runs = perRun.map(({ r, devs }) => runInput(db, sweep, r, devs, fallbackModel));
  if (runs.some((r) => r.status === 'done' && (r.devices ?? []).length === 0)) warnings.push('some finished runs have no recorded devices (no per-device samples)');
  let adaptive: AdaptiveSettings | null = null;
  const caps = sweep.plan.caps;
  if (!Array.isArray(caps) && 'adaptive' in caps) {
    const coarseRuns = scheduleRuns(sweep.plan).length;
    adaptive = {
      width_w: caps.adaptive.width_w,
      max_runs: caps.adaptive.max_runs,
      // Runs after the plan's own grid: the refinement's, also one repeating a grid cap whose run was excluded.
      runs_used: records.filter((r) => r.order >= coarseRuns).length,
      repetitions: sweep.plan.repetitions,
      batch: 2,
    };
  }
  // Refinement stays inside what every device of a model allows (1 W granularity, as nvidia-smi -pl takes).
  const device_limits: Record<string, { min_w: number; max_w: number; granularity_w: number }> = {};
  const default_limits: Record<string, number> = {};
  for (const { devs } of perRun) {
    const model = modelOf(devs);
    const gpus = devs.filter((d) => d.kind === 'gpu' && d.min_limit_w !== null && d.max_limit_w !== null);
    if (!model || gpus.length === 0) continue;
    const prev = device_limits[model];
    const min_w = Math.max(prev?.min_w ?? -Infinity, ...gpus.map((d) => d.min_limit_w!));
    const max_w = Math.min(prev?.max_w ?? Infinity, ...gpus.map((d) => d.max_limit_w!));
    device_limits[model] = { min_w, max_w, granularity_w: 1 };
    const defaults = gpus.map((d) => d.default_limit_w).filter((w): w is number => w !== null && w > 0);
    if (defaults.length) default_limits[model] = Math.max(default_limits[model] ?? 0, ...defaults);
  }
  return { sweep, input: { sweep_id: sweep.id, name: sweep.name, runs, overhead_w: sweep.plan.overhead_w, device_limits, default_limits }, adaptive, warnings };
}

/**
 * Energy over [from, to] from stored samples, with the same code the runs use (windowEnergy). Devices: those with
 * index `deviceIndex` (any backend/host), else every GPU with samples in the range (a dataset's: datasetEnergy).
 */
export function energyInRange(db: Db, from: number, to: number, deviceIndex?: number): RangeEnergy {
  // Imported datasets' devices are queried through their dataset (caplab energy --dataset), not by wall time.
  const all = listStoredDevices(db).filter((d) => !d.device_key.startsWith('dataset:') && (deviceIndex === undefined ? d.kind === 'gpu' : d.idx === deviceIndex));
  const r = energyOverDevices(db, all.map((d) => ({ row: d.id, index: d.idx, name: d.name, key: d.device_key })), from, to, deviceIndex !== undefined && all.length === 1);
  if (all.length === 0) r.warnings.push(deviceIndex === undefined ? 'no GPUs recorded in this database' : `no device with index ${deviceIndex} in this database`);
  else if (r.devices.length === 0) r.warnings.push('no samples in this time range');
  return r;
}

/** Energy over [from, to] of the given devices (those without samples there are left out unless keepEmpty). */
export function energyOverDevices(db: Db, devs: readonly { row: number; index: number; name: string; key: string; counter_lag_s?: number }[], from: number, to: number, keepEmpty = false, read: ReadSamples = readSamples): RangeEnergy {
  const pad = 5;
  const devices: RangeEnergy['devices'] = [];
  const warnings: string[] = [];
  for (const d of devs) {
    const rows = samplesInRange(db, d.row, from - pad, to + pad, undefined, read);
    if (rows.length === 0 && !keepEmpty) continue;
    const e = windowEnergy(rows, { start: from, end: to }, { device_id: d.key, counter_lag_s: d.counter_lag_s });
    devices.push({ ...e, index: d.index, name: d.name, device_key: d.key });
    // Simulated clocks of two sweeps can overlap: a range over both would add their readings together.
    const recordings = recordingsInRange(db, d.row, from, to);
    if (recordings.length > 1) {
      const names = recordings.map((r) => (r.sweep_id !== null ? `sweep ${r.sweep_id}` : `dataset ${r.dataset_id}`)).join(', ');
      warnings.push(`${d.name} (index ${d.index}) has samples of ${recordings.length} recordings in this range (${names}): the energy mixes them; narrow the range to one of them`);
    }
  }
  const ok = devices.length > 0 && devices.every((d) => d.energy_j !== null);
  const energy = ok ? devices.reduce((s, d) => s + (d.energy_j as number), 0) : null;
  const sensors = [...new Set(devices.map((d) => d.sensor))];
  const duration = to - from;
  return {
    from,
    to,
    duration_s: duration,
    energy_j: energy,
    mean_w: energy !== null && duration > 0 ? energy / duration : null,
    samples: devices.reduce((s, d) => s + d.samples, 0),
    sensor: sensors.length === 1 ? sensors[0]! : sensors.length ? (sensors.includes(null) ? null : 'mixed') : null,
    devices,
    warnings,
  };
}
