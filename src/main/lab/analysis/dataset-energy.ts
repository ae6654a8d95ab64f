// Energy of an imported dataset over any range (the Datasets page's brush, energyInRange, each segment of
// analyzeDataset), with the stated uncertainty of each device and of the total.
import { counterLagOf } from '../../../core/import';
import type { RangeEnergy } from '../../../shared/analysis';
import { DatasetDeviceKind, deviceKindWords, energyKindOf, type DatasetRecord } from '../../../shared/dataset';
import { deviceEnergyBound, totalEnergyBound, type PowerOf } from '../../../core/analysis/energy-uncertainty';
import type { Db } from '../store/db';
import { datasetRecord, devicesOfDataset } from '../store/dataset-records';
import { readSamples, type ReadSamples } from '../store/sample-blocks';
import { energyOverDevices, LoadError } from './load';

export function loadDataset(db: Db, id: number): DatasetRecord {
  const ds = datasetRecord(db, id);
  if (!ds) throw new LoadError(`no dataset ${id} in this database`);
  return ds;
}

/**
 * Energy of a dataset's GPUs (or the device with that index) over [from, to]. A dataset without GPUs of its own
 * (NLR aggregated profiles: one node-level series) gives the energy of its node-level power, and says so.
 */
export function datasetEnergy(db: Db, datasetId: number, from: number, to: number, deviceIndex?: number, read: ReadSamples = readSamples): RangeEnergy {
  loadDataset(db, datasetId);
  const all = devicesOfDataset(db, datasetId);
  const kind = deviceIndex === undefined ? energyKindOf(all.map((d) => d.kind)) : null;
  const devs = all.filter((d) => (deviceIndex === undefined ? d.kind === kind : d.index === deviceIndex));
  const r: RangeEnergy = energyOverDevices(db, devs.map((d) => ({ ...d, counter_lag_s: counterLagOf(d.format) })), from, to, false, read);
  const power = DatasetDeviceKind.safeParse(deviceIndex === undefined ? kind : devs[0]?.kind);
  if (power.success) r.power_of = power.data;
  if (devs.length === 0) r.warnings.push(deviceIndex === undefined ? 'this dataset has no GPU' : `no device with index ${deviceIndex} in this dataset`);
  else if (r.devices.length === 0) r.warnings.push('no samples of this dataset in this time range');
  if (power.success && power.data !== 'gpu' && deviceIndex === undefined) r.warnings.push(`no GPU series in this dataset: the energy is of its ${deviceKindWords[power.data]} power, not of GPUs alone`);
  return withBounds(r, power.success ? power.data : 'gpu');
}

/** Each device's stated uncertainty and the total's (energy-uncertainty.ts), as added fields. */
function withBounds(r: RangeEnergy, powerOf: PowerOf): RangeEnergy {
  const devices = r.devices.map((d) => ({ ...d, ...deviceEnergyBound(d, powerOf) }));
  return { ...r, devices, ...(r.energy_j === null ? { uncertainty_j: null, uncertainty_basis: 'no energy' } : totalEnergyBound(devices)) };
}
