// `caplab energy --from --to` over a range where two recordings of one device overlap (simulated clocks of two sweeps
// did, issue #14 finding 5): the energy is returned with a warning naming both, on a real SQLite file.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb } from '../../../src/main/lab/store/db';
import { upsertDevice } from '../../../src/main/lab/store/devices';
import { createSweep } from '../../../src/main/lab/store/sweeps';
import { SampleWriter, streamFor } from '../../../src/main/lab/store/sample-blocks';
import { energyInRange } from '../../../src/main/lab/analysis/load';
import { Plan } from '../../../src/shared/plan';
import type { DeviceInfo } from '../../../src/shared/device';
import { tempDir } from '../../helpers/tmp';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const device: DeviceInfo = {
  id: 'sim:0', index: 0, backend: 'sim', kind: 'gpu', name: 'H100 SXM (simulated)', vendor: 'NVIDIA', simulated: true, uuid: null, pci_bus_id: null, driver: null,
  vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700, default_limit_w: 700,
  sensors: { power_kinds: ['instant'], energy_counter: false, energy_counter_check: 'absent', update_period_ms: 100 },
};

describe('energy over a time range', () => {
  const db = openDb(join(tmp.dir, 'range.db'));
  const row = upsertDevice(db, 'h', device);
  const plan = Plan.parse({ name: 'x', workloads: [{ id: 'vit_l_16' }], caps: [300] });
  const writer = new SampleWriter(db);
  const sweep = (from: number, to: number, w: number) => {
    const { sweepId } = createSweep(db, { name: 'x', plan, host: 'h', backend: 'sim', simulated: true }, []);
    const rows = [];
    for (let t = from; t <= to + 1e-9; t += 0.1) rows.push({ t, power_w: w, power_kind: 'instant' as const, power_avg_w: null, energy_mj: null, sm_clock_mhz: null, mem_clock_mhz: null, temp_c: null, util_gpu: null, util_mem: null, mem_used_mb: null, limit_w: null, throttle_reasons: null });
    writer.appendRows(streamFor(db, { sweep_id: sweepId }, row), rows);
    writer.flush();
    return sweepId;
  };
  const a = sweep(1000, 1100, 300);
  const b = sweep(1050, 1150, 500);
  it('one recording in the range: no warning', () => {
    const r = energyInRange(db, 1010, 1040);
    expect(r.energy_j).toBeCloseTo(300 * 30, 0);
    expect(r.warnings).toEqual([]);
  });
  it('two overlapping recordings: a warning names both', () => {
    const r = energyInRange(db, 1060, 1090);
    expect(r.warnings.join()).toMatch(new RegExp(`samples of 2 recordings in this range \\(sweep ${a}, sweep ${b}\\): the energy mixes them`));
  });
});
