// A tuning session's stored outcome (the v13 migration, setTuneStatus / getTuneStatus), on a real SQLite file: what
// the console's tuner panel shows when opened after the session ended.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDb } from '../../../src/main/lab/store/db';
import { migrations } from '../../../src/main/lab/store/migrations';
import { createSweep, getTuneStatus, setTuneStatus } from '../../../src/main/lab/store/sweeps';
import { Plan } from '../../../src/shared/plan';
import type { TuneStatus } from '../../../src/shared/tune';
import { scheduleRuns } from '../../../src/core/schedule';
import { tempDir } from '../../helpers/tmp';

const plan = Plan.parse({ workloads: [{ id: 'vit_l_16' }], caps: [300, 500], repetitions: 1 });
let tmp = tempDir();

afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

const ended = (sweep_id: number): TuneStatus => ({
  sweep_id, stage: 'ended', cap_w: 335, held_w: 335, visits: 24, profiling_s: 370, profiling_share: 0.2, budget_s: 375, job_s: 1834, expected_s: 1500, default_limit_w: 700,
  note: 'held 335 W: profiling budget spent (370 of 375 s)',
});

describe('a tuning session\'s stored outcome', () => {
  it('is kept as the session ended and read back; a sweep has none', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const a = createSweep(db, { name: 'tune: x', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    const b = createSweep(db, { name: 'a sweep', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan)).sweepId;
    expect(getTuneStatus(db, a)).toBeNull();
    setTuneStatus(db, a, ended(a));
    expect(getTuneStatus(db, a)).toEqual(ended(a));
    expect(getTuneStatus(db, b)).toBeNull();
    expect(getTuneStatus(db, 999)).toBeNull();
    db.close();
  });

  it('a database from before v13 opens, its sessions with no stored outcome', () => {
    const path = join(tmp.dir, 'lab.db');
    const db = openDb(path);
    const a = createSweep(db, { name: 'tune: old', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    db.close();
    const raw = new Database(path);
    raw.exec('ALTER TABLE sweeps DROP COLUMN tune_status;');
    raw.pragma('user_version = 12');
    raw.close();
    const again = openDb(path);
    expect(again.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(getTuneStatus(again, a)).toBeNull();
    again.close();
  });
});
