import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDb, StoreError } from '../../../src/main/lab/store/db';
import { migrations } from '../../../src/main/lab/store/migrations';
import { upsertDevice } from '../../../src/main/lab/store/devices';
import { samplesInRange, writeSamples } from '../../../src/main/lab/store/samples';
import { createSweep, getSweep, listSweeps, markInterruptedSweeps, runsOfSweep, deleteSweep } from '../../../src/main/lab/store/sweeps';
import { journalLimit, markRestored, openJournal } from '../../../src/main/lab/store/journal';
import { Plan } from '../../../src/shared/plan';
import { scheduleRuns } from '../../../src/core/schedule';
import type { DeviceInfo, Sample } from '../../../src/shared/device';
import { tempDir } from '../../helpers/tmp';

const device: DeviceInfo = {
  id: 'sim:0', index: 0, backend: 'sim', kind: 'gpu', name: 'H100 SXM (simulated)', vendor: 'sim', simulated: true,
  uuid: null, pci_bus_id: null, driver: null, vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700,
  default_limit_w: 700, sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
};
const plan = Plan.parse({ workloads: [{ id: 'vit_l_16' }], caps: [300, 500], repetitions: 2 });

let tmp = tempDir();
afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

describe('lab store', () => {
  it('opens in WAL mode with synchronous=NORMAL and records the schema version', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    db.close();
    // Reopening runs no migration twice.
    const again = openDb(join(tmp.dir, 'lab.db'));
    expect(again.pragma('user_version', { simple: true })).toBe(migrations.length);
    again.close();
  });

  it('refuses a database from a newer CapLab', () => {
    const file = join(tmp.dir, 'new.db');
    const db = openDb(file);
    db.pragma(`user_version = ${migrations.length + 1}`);
    db.close();
    expect(() => openDb(file)).toThrow(/newer than this CapLab/);
  });

  it('names the file when the database path cannot be written', () => {
    const ro = join(tmp.dir, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o500);
    const file = join(ro, 'sub', 'lab.db');
    // root ignores directory modes; a path under a regular file fails for everyone.
    const blocked = process.getuid?.() === 0 ? join(tmp.dir, 'lab.db', 'x.db') : file;
    if (process.getuid?.() === 0) openDb(join(tmp.dir, 'lab.db')).close();
    expect(() => openDb(blocked)).toThrow(StoreError);
    expect(() => openDb(blocked)).toThrow(blocked);
  });

  it('writes a sweep with all its runs in one transaction and reads them back in order', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const runs = scheduleRuns(plan);
    const { sweepId, runIds } = createSweep(db, { name: 'a', plan, host: 'h', backend: 'sim', simulated: true }, runs);
    expect(runIds).toHaveLength(4);
    const stored = runsOfSweep(db, sweepId);
    expect(stored.map((r) => [r.cap_w, r.repetition, r.status])).toEqual(runs.map((r) => [r.cap_w, r.repetition, 'pending']));
    expect(getSweep(db, sweepId)).toMatchObject({ name: 'a', status: 'running', run_count: 4, runs_done: 0, simulated: true });
    expect(listSweeps(db, 'vit_l')).toHaveLength(1);
    expect(listSweeps(db, 'nothing-like-this')).toHaveLength(0);
    expect(deleteSweep(db, sweepId)).toBe(true);
    expect(runsOfSweep(db, sweepId)).toHaveLength(0);
    db.close();
  });

  it('writes a device\'s samples to its sweep stream and reads a time range', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const { sweepId } = createSweep(db, { name: 's', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan));
    const id = upsertDevice(db, 'h', device);
    // The same card again (new driver) is the same row; another model in the same slot is another device.
    expect(upsertDevice(db, 'h', { ...device, driver: '999.1' })).toBe(id);
    expect(upsertDevice(db, 'h', { ...device, name: 'H200 (simulated)' })).not.toBe(id);
    const samples: Sample[] = Array.from({ length: 1000 }, (_, i) => ({
      device_id: 'sim:0', t: 1000 + i * 0.1, power_w: 300 + (i % 7), power_kind: 'instant', power_avg_w: null, energy_mj: i * 30,
      sm_clock_mhz: 1500, mem_clock_mhz: 2600, temp_c: 60, util_gpu: 100, util_mem: 40, mem_used_mb: 1000, limit_w: 300, throttle_reasons: 4,
    }));
    expect(writeSamples(db, { sweep_id: sweepId }, id, samples)).toBe(1000);
    const range = samplesInRange(db, id, 1010, 1020);
    expect(range.length).toBe(101);
    expect(range[0]).toMatchObject({ t: 1010, power_kind: 'instant', throttle_reasons: 4, power_w: 300 + (100 % 7) });
    db.close();
  });

  it('marks sweeps of dead processes as interrupted', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const { sweepId, runIds } = createSweep(db, { name: 'a', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan));
    db.prepare("UPDATE runs SET status = 'running' WHERE id = ?").run(runIds[0]);
    expect(markInterruptedSweeps(db, () => true)).toEqual([]);
    expect(markInterruptedSweeps(db, () => false)).toEqual([sweepId]);
    expect(getSweep(db, sweepId)!.status).toBe('interrupted');
    expect(runsOfSweep(db, sweepId)[0]!.status).toBe('failed');
    db.close();
  });

  it('keeps journal entries open until restored, and failed restores stay open', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const entry = { sweep_id: null, device_key: 'h/sim:0', backend: 'sim', backend_opts: '{}', idx: 0, device_name: 'x', before_w: 650 };
    const a = journalLimit(db, entry);
    const b = journalLimit(db, { ...entry, before_w: 300 });
    expect(openJournal(db).map((e) => e.before_w)).toEqual([650, 300]);
    markRestored(db, [a, b], null, 'permission denied');
    expect(openJournal(db)).toHaveLength(2);
    markRestored(db, [a, b], 650, null);
    expect(openJournal(db)).toHaveLength(0);
    db.close();
  });
});
