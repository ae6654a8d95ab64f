// Duplicate readings are dropped where samples enter the store (issue #14, finding 7: 728 of 59,892 instant rows were
// exact duplicates), on a real SQLite file.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb } from '../../../src/main/lab/store/db';
import { upsertDevice } from '../../../src/main/lab/store/devices';
import { createSweep } from '../../../src/main/lab/store/sweeps';
import { readSamples, streamFor } from '../../../src/main/lab/store/sample-blocks';
import { SampleRecorder } from '../../../src/main/lab/sweep/sample-recorder';
import { Plan } from '../../../src/shared/plan';
import type { DeviceInfo } from '../../../src/shared/device';
import { Sample } from '../../../src/shared/sample';
import { tempDir } from '../../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const device: DeviceInfo = {
  id: 'nvml:0', index: 0, backend: 'nvml', kind: 'gpu', name: 'H200', vendor: 'NVIDIA', simulated: false, uuid: 'GPU-1', pci_bus_id: null, driver: null,
  vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
};

/** A recorder for one sweep on one device, in a fresh SQLite file. */
function recorderIn(file: string) {
  const db = openDb(join(tmp.dir, file));
  const plan = Plan.parse({ name: 'r', workloads: [{ id: 'vit_l_16' }], caps: [300] });
  const { sweepId } = createSweep(db, { name: 'r', plan, host: 'h', backend: 'nvml', simulated: false }, []);
  const row = upsertDevice(db, 'h', device);
  return { db, sweepId, row, rec: new SampleRecorder(db, sweepId, new Map([['nvml:0', row]]), () => {}) };
}

describe('SampleRecorder', () => {
  it('drops exact repeats of a reading (same device, kind and time) and keeps everything else', () => {
    const { db, sweepId, row, rec } = recorderIn('rec.db');
    const s = (t: number, kind: 'instant' | 'counter', power: number | null) => Sample.parse({ device_id: 'nvml:0', t, power_w: power, power_kind: kind, energy_mj: kind === 'counter' ? t * 1000 : null });
    rec.collect([s(100, 'instant', 300), s(100.1, 'instant', 310)]);
    rec.collect([s(100.1, 'instant', 310), s(100.1, 'counter', null), s(100.2, 'instant', 320)]);
    rec.flush();
    rec.collect([s(100.2, 'instant', 320), s(100.3, 'instant', 330)]);
    rec.flush();
    expect(rec.duplicates).toBe(2);
    const stored = readSamples(db, streamFor(db, { sweep_id: sweepId }, row), -Infinity, Infinity);
    expect(stored.map((x) => [x.t, x.power_kind])).toEqual([
      [100, 'instant'],
      [100.1, 'instant'],
      [100.1, 'counter'],
      [100.2, 'instant'],
      [100.3, 'instant'],
    ]);
    db.close();
  });

  it('of two rows at one time keeps the fresh one (read later), not the stale one', () => {
    const { db, sweepId, row, rec } = recorderIn('fresh.db');
    const edge = (energy_mj: number) => Sample.parse({ device_id: 'nvml:0', t: 200, power_w: null, power_kind: 'counter', energy_mj });
    rec.collect([edge(5_000_000)]);
    rec.collect([edge(5_000_400)]);
    rec.flush();
    const stored = readSamples(db, streamFor(db, { sweep_id: sweepId }, row), -Infinity, Infinity);
    expect(stored.map((x) => [x.t, x.energy_mj])).toEqual([[200, 5_000_400]]);
    expect(rec.duplicates).toBe(1);
    db.close();
  });
});
