// A sweep's or dataset's stored rows as the export bundle's parts, and back: the store side of the JSON export and
// its re-import.
import type { Db } from './db';
import type { ExportBundle, MetricBlock, RunDevice, SampleBlock, SampleSource } from '../../../shared/export';
import { SAMPLE_EXPORT_COLUMNS } from '../../../shared/export';
import { DatasetDeviceKind, ImportReport, SegmentOrigin } from '../../../shared/dataset';
import type { Sample, SampleField } from '../../../shared/sample';
import { iterateSampleChunks, valueAt, type SampleSelection } from './sample-stream';
import { SampleWriter, streamFor, type StreamOwner } from './sample-blocks';
import { PLAN_SCHEMA_VERSION } from './stored-plan';
import { createDataset } from './datasets';
import { setTuneStatus } from './sweeps';
import { finishDataset, insertDatasetFile, insertSegment } from './dataset-records';

type Col = SampleField;
const COLS = SAMPLE_EXPORT_COLUMNS.map((c) => c.name);

/** Every sample of a sweep, one column-oriented block per device stream, t ascending (the stored values). */
export function sweepSampleBlocks(db: Db, sweepId: number): SampleBlock[] {
  return sampleBlocks(db, { sweepId }, { kind: 'sweep', sweep_id: sweepId });
}

/** Every sample of an imported dataset, one block per device stream. */
export function datasetSampleBlocks(db: Db, datasetId: number): SampleBlock[] {
  return sampleBlocks(db, { datasetId }, { kind: 'dataset', dataset_id: datasetId });
}

function sampleBlocks(db: Db, sel: SampleSelection, source: SampleSource): SampleBlock[] {
  const blocks = new Map<string, SampleBlock>();
  for (const c of iterateSampleChunks(db, sel, COLS)) {
    let b = blocks.get(c.device);
    if (!b) {
      b = { source, device: c.device, ...(Object.fromEntries(COLS.map((f) => [f, []])) as unknown as Omit<SampleBlock, 'source' | 'device'>) };
      blocks.set(c.device, b);
    }
    for (const f of COLS) {
      const out = b[f] as unknown[];
      for (let i = c.a; i < c.b; i++) out.push(valueAt(c.cols, f, i));
    }
  }
  return [...blocks.values()];
}

export function sweepMetricBlocks(db: Db, sweepId: number): MetricBlock[] {
  const rows = db
    .prepare('SELECT m.run_id, m.name, m.t, m.value FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.sweep_id = ? ORDER BY m.run_id, m.name, m.id')
    .all(sweepId) as { run_id: number; name: string; t: number; value: number }[];
  const blocks = new Map<string, MetricBlock>();
  for (const m of rows) {
    const key = `${m.run_id}\u0000${m.name}`;
    let b = blocks.get(key);
    if (!b) blocks.set(key, (b = { source: { kind: 'run', run_id: m.run_id }, name: m.name, t: [], value: [] }));
    b.t.push(m.t);
    b.value.push(m.value);
  }
  return [...blocks.values()];
}

export function sweepRunDevices(db: Db, sweepId: number): RunDevice[] {
  return db
    .prepare(
      `SELECT rd.run_id, d.device_key AS device, rd.energy_j, rd.mean_power_w, rd.energy_sensor, rd.enforced_limit_w
       FROM run_devices rd JOIN runs r ON r.id = rd.run_id JOIN devices d ON d.id = rd.device_id WHERE r.sweep_id = ? ORDER BY rd.run_id, d.idx`,
    )
    .all(sweepId) as RunDevice[];
}

/**
 * Writes a sweep bundle into this database as a new sweep (new ids; devices matched by key), in one transaction:
 * a bundle is imported whole or not at all. Returns the new sweep id.
 */
export function importSweepBundle(db: Db, b: ExportBundle): number {
  const s = b.sweep;
  if (b.kind !== 'sweep' || !s) throw new Error('importSweepBundle: the bundle holds no sweep');
  return db.transaction(() => {
    const deviceIds = new Map<string, number>();
    const insDev = db.prepare(
      `INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, uuid, pci_bus_id, driver, vbios, min_limit_w, max_limit_w, default_limit_w, sensors, updated_at)
       VALUES (@key, @host, @backend, @index, @kind, @name, @vendor, @simulated, @uuid, @pci_bus_id, @driver, @vbios, @min_limit_w, @max_limit_w, @default_limit_w, @sensors, @now)
       ON CONFLICT(device_key) DO NOTHING`,
    );
    for (const d of b.devices) {
      insDev.run({ ...d, simulated: d.simulated ? 1 : 0, sensors: JSON.stringify(d.sensors), now: Date.now() / 1000 });
      deviceIds.set(d.key, (db.prepare('SELECT id FROM devices WHERE device_key = ?').get(d.key) as { id: number }).id);
    }
    const sweepId = Number(
      db
        .prepare('INSERT INTO sweeps (name, plan, plan_version, status, host, backend, simulated, error, created_at, finished_at, environment, tune_report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(s.name, JSON.stringify(s.plan), PLAN_SCHEMA_VERSION, s.status, s.host, s.backend, s.simulated ? 1 : 0, s.error, s.created_at, s.finished_at, JSON.stringify(b.environment), s.tune_report).lastInsertRowid,
    );
    // A tuning session's outcome names its sweep: the new one here.
    if (b.tune_status) setTuneStatus(db, sweepId, { ...b.tune_status, sweep_id: sweepId });
    const runIds = new Map<number, number>();
    const insRun = db.prepare(
      `INSERT INTO runs (sweep_id, workload, cap_w, repetition, run_order, status, exit_code, error, started_at, ended_at, warmup_end, measure_start, measure_end,
         units, throughput, mean_power_w, energy_j, efficiency, energy_sensor, enforced_limit_w, units_in_window, gpus, cpu_energy_j, reason, adaptive)
       VALUES (@sweep_id, @workload, @cap_w, @repetition, @order, @status, @exit_code, @error, @started_at, @ended_at, @warmup_end, @measure_start, @measure_end,
         @units, @throughput, @mean_power_w, @energy_j, @efficiency, @energy_sensor, @enforced_limit_w, @units_in_window, @gpus, @cpu_energy_j, @reason, @adaptive)`,
    );
    for (const r of b.runs) runIds.set(r.id, Number(insRun.run({ ...r, sweep_id: sweepId, adaptive: r.adaptive ? JSON.stringify(r.adaptive) : null }).lastInsertRowid));
    const runOf = (src: SampleSource) => (src.kind === 'run' ? (runIds.get(src.run_id) ?? null) : null);
    const devOf = (key: string) => {
      const id = deviceIds.get(key);
      if (id === undefined) throw new Error(`bundle: samples name device ${key}, which is not in its devices`);
      return id;
    };
    const insRd = db.prepare('INSERT INTO run_devices (run_id, device_id, energy_j, mean_power_w, energy_sensor, enforced_limit_w) VALUES (?, ?, ?, ?, ?, ?)');
    for (const rd of b.run_devices) insRd.run(runIds.get(rd.run_id), devOf(rd.device), rd.energy_j, rd.mean_power_w, rd.energy_sensor, rd.enforced_limit_w);
    writeSampleBlocks(db, b.samples, { sweep_id: sweepId }, devOf);
    const insMetric = db.prepare('INSERT INTO metrics (run_id, t, name, value) VALUES (?, ?, ?, ?)');
    for (const m of b.metrics) {
      const run = runOf(m.source);
      for (let i = 0; i < m.t.length; i++) insMetric.run(run, m.t[i], m.name, m.value[i]);
    }
    return sweepId;
  })();
}

/** Writes a bundle's sample blocks into streams of `owner`, each device mapped to its row here. */
function writeSampleBlocks(db: Db, samples: readonly SampleBlock[], owner: StreamOwner, devOf: (key: string) => number): number {
  const writer = new SampleWriter(db);
  let n = 0;
  for (const blk of samples) {
    const stream = streamFor(db, owner, devOf(blk.device));
    const rows = blk.t.map((t, i) => Object.fromEntries(COLS.map((f) => [f, f === 't' ? t : (blk[f as Col][i] ?? null)])) as unknown as Omit<Sample, 'device_id'>);
    writer.appendRows(stream, rows);
    n += rows.length;
  }
  writer.close();
  return n;
}

/** A dataset's metrics (units read from throughput logs) as bundle blocks, one per name. */
export function datasetMetricBlocks(db: Db, datasetId: number): MetricBlock[] {
  const rows = db.prepare('SELECT name, t, value FROM metrics WHERE dataset_id = ? ORDER BY name, id').all(datasetId) as { name: string; t: number; value: number }[];
  const blocks = new Map<string, MetricBlock>();
  for (const m of rows) {
    let b = blocks.get(m.name);
    if (!b) blocks.set(m.name, (b = { source: { kind: 'dataset', dataset_id: datasetId }, name: m.name, t: [], value: [] }));
    b.t.push(m.t);
    b.value.push(m.value);
  }
  return [...blocks.values()];
}

/**
 * Writes a dataset bundle into this database as a new dataset (new ids; its devices get rows of their own under the
 * new dataset, keys rewritten), inside the caller's transaction. `file` is recorded as its source file with the
 * bundle's hash, so the same file imported again is found. Returns the new dataset id. A bundle that names a device
 * it does not hold throws a plain Error with that key (the caller names the file).
 */
export function importDatasetBundle(db: Db, b: ExportBundle, file: { path: string; bytes: number; content_hash: string }): number {
  const d = b.dataset;
  if (b.kind !== 'dataset' || !d) throw new Error('importDatasetBundle: the bundle holds no dataset');
  const report = ImportReport.safeParse((d as { report?: unknown }).report);
  const id = createDataset(db, { name: d.name, source: file.path, format: d.format, timezone: d.timezone, meta: { ...d.meta, imported_from: { file: file.path, content_hash: file.content_hash, exported_at: b.exported_at, dataset_id: d.id, source: d.source } } });
  const host = `dataset:${id}`;
  const keys = new Map<string, string>();
  const rows = new Map<string, number>();
  const ins = db.prepare(
    `INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, uuid, pci_bus_id, driver, vbios, min_limit_w, max_limit_w, default_limit_w, sensors, updated_at)
     VALUES (@key, @host, @backend, @index, @kind, @name, @vendor, @simulated, @uuid, @pci_bus_id, @driver, @vbios, @min_limit_w, @max_limit_w, @default_limit_w, @sensors, @now)`,
  );
  for (const dev of b.devices) {
    // dataset:<old id>/<format>:<index>/<key> -> dataset:<new id>/...
    const key = `${host}/${dev.key.replace(/^dataset:\d+\//, '')}`;
    const kind = DatasetDeviceKind.safeParse(dev.kind);
    const row = Number(ins.run({ ...dev, key, host, kind: kind.success ? kind.data : 'gpu', simulated: dev.simulated ? 1 : 0, sensors: JSON.stringify(dev.sensors), now: Date.now() / 1000 }).lastInsertRowid);
    keys.set(dev.key, key);
    rows.set(dev.key, row);
  }
  const devOf = (key: string) => {
    const row = rows.get(key);
    if (row === undefined) throw new Error(`samples name device ${key}, which is not in the bundle's devices`);
    return row;
  };
  const samples = writeSampleBlocks(db, b.samples, { dataset_id: id }, devOf);
  const insMetric = db.prepare('INSERT INTO metrics (dataset_id, t, name, value) VALUES (?, ?, ?, ?)');
  for (const m of b.metrics) for (let i = 0; i < m.t.length; i++) insMetric.run(id, m.t[i], m.name, m.value[i]);
  for (const seg of b.segments) {
    const s = seg as typeof seg & Record<string, unknown>;
    if (!(seg.end >= seg.start)) throw new Error(`segment ${seg.id} ends (${seg.end}) before it starts (${seg.start})`);
    const deviceKeys = Array.isArray(s.device_keys) ? (s.device_keys as string[]).map((k) => keys.get(k) ?? k) : null;
    const origin = SegmentOrigin.safeParse(s.origin);
    insertSegment(db, id, {
      start: seg.start,
      end: seg.end,
      device_keys: deviceKeys,
      workload: typeof s.workload === 'string' ? s.workload : null,
      cap_w: typeof s.cap_w === 'number' ? s.cap_w : null,
      units: typeof s.units === 'string' ? s.units : null,
      units_in_window: typeof s.units_in_window === 'number' ? s.units_in_window : null,
      repetition: typeof s.repetition === 'number' ? s.repetition : 1,
      label: typeof s.label === 'string' ? s.label : seg.name,
      origin: origin.success ? origin.data : 'structure',
    });
  }
  insertDatasetFile(db, id, { path: file.path, format: 'caplab-json', bytes: file.bytes, content_hash: file.content_hash });
  const t = b.samples.flatMap((blk) => (blk.t.length ? [blk.t[0]!, blk.t[blk.t.length - 1]!] : []));
  const fallback: ImportReport = { format: d.format, files: [file.path], rows_read: samples, rows_skipped: 0, skipped: [], devices: [], columns: [], t_start: t.length ? Math.min(...t) : null, t_end: t.length ? Math.max(...t) : null, clock: 'wall', warnings: [], reordered: { count: 0, lines: [] } };
  finishDataset(db, id, { report: report.success ? report.data : fallback, samples, content_hash: d.content_hash ?? file.content_hash });
  return id;
}
