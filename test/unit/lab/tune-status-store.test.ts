// A tuning session's stored outcome (the v13 migration, setTuneStatus / getTuneStatus), on a real SQLite file: what
// the console's tuner panel shows when opened after the session ended.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDb } from '../../../src/main/lab/store/db';
import { migrations } from '../../../src/main/lab/store/migrations';
import { createSweep, getSweep, getTuneStatus, listSweeps, setTuneReport, setTuneStatus } from '../../../src/main/lab/store/sweeps';
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

  it('keeps the end report text with the session: on its sweep record, listed and got; a sweep has none', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const a = createSweep(db, { name: 'tune: x', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    const b = createSweep(db, { name: 'a sweep', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan)).sweepId;
    expect(getSweep(db, a)!.tune_report).toBeNull();
    const text = 'tune session 1: done\ncap held        335 W\nenergy saved    1200 J (95 % interval 900 to 1500 J)\n';
    setTuneReport(db, a, text);
    expect(getSweep(db, a)!.tune_report).toBe(text);
    expect(listSweeps(db).map((s) => [s.id, s.tune_report])).toEqual([[b, null], [a, text]]);
    db.close();
  });

  /** A session written by this CapLab, its database then taken back to `version` by `sql`, and opened again (migrated). */
  function sessionFrom(version: number, sql: string, withStatus: boolean): { db: ReturnType<typeof openDb>; id: number } {
    const path = join(tmp.dir, 'lab.db');
    const db = openDb(path);
    const id = createSweep(db, { name: 'tune: old', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    if (withStatus) setTuneStatus(db, id, ended(id));
    db.close();
    const raw = new Database(path);
    raw.exec(sql);
    raw.pragma(`user_version = ${version}`);
    raw.close();
    const again = openDb(path);
    expect(again.pragma('user_version', { simple: true })).toBe(migrations.length);
    return { db: again, id };
  }

  it('a database from before v14 opens, its sessions with no end report', () => {
    const { db, id } = sessionFrom(13, 'ALTER TABLE sweeps DROP COLUMN tune_report;', true);
    expect(getSweep(db, id)!.tune_report).toBeNull();
    expect(getTuneStatus(db, id)).toEqual(ended(id));
    db.close();
  });

  it('a database from before v13 opens, its sessions with no stored outcome', () => {
    const { db, id } = sessionFrom(12, 'ALTER TABLE sweeps DROP COLUMN tune_report; ALTER TABLE sweeps DROP COLUMN tune_status;', false);
    expect(getTuneStatus(db, id)).toBeNull();
    db.close();
  });
});
