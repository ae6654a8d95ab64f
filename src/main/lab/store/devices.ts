import type { Db } from './db';
import type { DeviceInfo } from '../../../shared/device';
import type { ExportDevice } from '../../../shared/export';

/**
 * host/backend:index/identity, where identity is the UUID (else the name): a different card in the same slot, or
 * another simulated preset at the same index, is another device and keeps its own history.
 */
export function deviceKey(host: string, d: Pick<DeviceInfo, 'backend' | 'index' | 'uuid' | 'name'>): string {
  return `${host}/${d.backend}:${d.index}/${d.uuid ?? d.name}`;
}

/** Inserts or refreshes a device row; returns its id. */
export function upsertDevice(db: Db, host: string, d: DeviceInfo): number {
  const key = deviceKey(host, d);
  db.prepare(
    `INSERT INTO devices (device_key, host, backend, idx, kind, name, vendor, simulated, uuid, pci_bus_id, driver, vbios,
       min_limit_w, max_limit_w, default_limit_w, sensors, updated_at)
     VALUES (@key, @host, @backend, @index, @kind, @name, @vendor, @simulated, @uuid, @pci_bus_id, @driver, @vbios,
       @min_limit_w, @max_limit_w, @default_limit_w, @sensors, @now)
     ON CONFLICT(device_key) DO UPDATE SET kind=excluded.kind, name=excluded.name, vendor=excluded.vendor,
       simulated=excluded.simulated, uuid=excluded.uuid, pci_bus_id=excluded.pci_bus_id, driver=excluded.driver,
       vbios=excluded.vbios, min_limit_w=excluded.min_limit_w, max_limit_w=excluded.max_limit_w,
       default_limit_w=excluded.default_limit_w, sensors=excluded.sensors, updated_at=excluded.updated_at`,
  ).run({
    key,
    host,
    backend: d.backend,
    index: d.index,
    kind: d.kind,
    name: d.name,
    vendor: d.vendor,
    simulated: d.simulated ? 1 : 0,
    uuid: d.uuid,
    pci_bus_id: d.pci_bus_id,
    driver: d.driver,
    vbios: d.vbios,
    min_limit_w: d.min_limit_w,
    max_limit_w: d.max_limit_w,
    default_limit_w: d.default_limit_w,
    sensors: JSON.stringify(d.sensors),
    now: Date.now() / 1000,
  });
  return (db.prepare('SELECT id FROM devices WHERE device_key = ?').get(key) as { id: number }).id;
}

export interface StoredDevice {
  id: number;
  device_key: string;
  backend: string;
  idx: number;
  kind: string;
  name: string;
  simulated: number;
  min_limit_w: number | null;
  max_limit_w: number | null;
  default_limit_w: number | null;
}

const deviceColumns = 'd.id, d.device_key, d.backend, d.idx, d.kind, d.name, d.simulated, d.min_limit_w, d.max_limit_w, d.default_limit_w';

export function getDevice(db: Db, id: number): StoredDevice | undefined {
  return db.prepare(`SELECT ${deviceColumns} FROM devices d WHERE d.id = ?`).get(id) as StoredDevice | undefined;
}

/** Every device this database has seen, in id order. */
export function listStoredDevices(db: Db): StoredDevice[] {
  return db.prepare(`SELECT ${deviceColumns} FROM devices d ORDER BY d.id`).all() as StoredDevice[];
}

/** Devices that have samples in the given run (or any run of a sweep). */
export function devicesOfRun(db: Db, runId: number): StoredDevice[] {
  return db
    .prepare(
      `SELECT ${deviceColumns} FROM devices d
       WHERE d.id IN (SELECT device_id FROM run_devices WHERE run_id = ?) ORDER BY d.idx`,
    )
    .all(runId) as StoredDevice[];
}

interface DeviceRow {
  device_key: string;
  host: string;
  backend: string;
  idx: number;
  kind: string;
  name: string;
  vendor: string;
  simulated: number;
  uuid: string | null;
  pci_bus_id: string | null;
  driver: string | null;
  vbios: string | null;
  min_limit_w: number | null;
  max_limit_w: number | null;
  default_limit_w: number | null;
  sensors: string;
}

const exportDeviceColumns = `d.device_key, d.host, d.backend, d.idx, d.kind, d.name, d.vendor, d.simulated, d.uuid, d.pci_bus_id, d.driver, d.vbios,
  d.min_limit_w, d.max_limit_w, d.default_limit_w, d.sensors`;

/** Every device with samples in a sweep's runs, with its identity (UUID, PCI bus, driver, VBIOS) and sensors. */
export function exportDevicesOfSweep(db: Db, sweepId: number): ExportDevice[] {
  return toExportDevices(
    db
      .prepare(`SELECT ${exportDeviceColumns} FROM devices d WHERE d.id IN (SELECT rd.device_id FROM run_devices rd JOIN runs r ON r.id = rd.run_id WHERE r.sweep_id = ?) ORDER BY d.kind DESC, d.idx`)
      .all(sweepId) as DeviceRow[],
  );
}

/** Every device with samples in an imported dataset. */
export function exportDevicesOfDataset(db: Db, datasetId: number): ExportDevice[] {
  return toExportDevices(
    db.prepare(`SELECT ${exportDeviceColumns} FROM devices d WHERE d.id IN (SELECT device_id FROM sample_streams WHERE dataset_id = ?) ORDER BY d.kind DESC, d.idx`).all(datasetId) as DeviceRow[],
  );
}

function toExportDevices(rows: DeviceRow[]): ExportDevice[] {
  return rows.map(({ device_key, idx, simulated, sensors, ...d }) => ({ ...d, key: device_key, index: idx, simulated: simulated === 1, sensors: JSON.parse(sensors) as ExportDevice['sensors'] }));
}

export interface RunDeviceFigures {
  device_id: number;
  idx: number;
  energy_j: number | null;
  mean_power_w: number | null;
  energy_sensor: string | null;
  enforced_limit_w: number | null;
}

/** A run's per-device figures (every kind of device), by device index. */
export function runDeviceFigures(db: Db, runId: number): RunDeviceFigures[] {
  return db
    .prepare(
      `SELECT rd.device_id, d.idx, rd.energy_j, rd.mean_power_w, rd.energy_sensor, rd.enforced_limit_w
       FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = ? ORDER BY d.idx`,
    )
    .all(runId) as RunDeviceFigures[];
}

/** Reads a run's per-GPU power and energy, by GPU index; one statement, prepared once, for many runs. */
export function runGpuFiguresReader(db: Db): (runId: number) => { idx: number; uuid: string | null; power_w: number | null; energy_j: number | null }[] {
  const stmt = db.prepare(
    `SELECT d.idx AS idx, d.uuid AS uuid, rd.mean_power_w AS power_w, rd.energy_j AS energy_j
     FROM run_devices rd JOIN devices d ON d.id = rd.device_id WHERE rd.run_id = ? AND d.kind = 'gpu' ORDER BY d.idx`,
  );
  return (runId) => stmt.all(runId) as { idx: number; uuid: string | null; power_w: number | null; energy_j: number | null }[];
}
