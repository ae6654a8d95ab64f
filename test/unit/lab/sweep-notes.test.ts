// History page tags and notes (issue #29 item 2): the v11 migration, setSweepNotes and the search over them, on a
// real SQLite file.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDb } from '../../../src/main/lab/store/db';
import { migrations } from '../../../src/main/lab/store/migrations';
import { createSweep, getSweep, listSweeps, setSweepNotes } from '../../../src/main/lab/store/sweeps';
import { Plan } from '../../../src/shared/plan';
import { scheduleRuns } from '../../../src/core/schedule';
import { tempDir } from '../../helpers/tmp';

const plan = Plan.parse({ workloads: [{ id: 'vit_l_16' }], caps: [300, 500], repetitions: 1 });
let tmp = tempDir();
afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

describe('sweep tags and notes', () => {
  it('a database from before v11 opens with its sweeps untagged and without notes', () => {
    const path = join(tmp.dir, 'lab.db');
    const db = openDb(path);
    const { sweepId } = createSweep(db, { name: 'old', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan));
    db.close();
    // Make it what the release before v11 wrote: no tags/notes columns (nor the later tune_status, tune_report), schema v10.
    const raw = new Database(path);
    raw.exec('ALTER TABLE sweeps DROP COLUMN tags; ALTER TABLE sweeps DROP COLUMN notes; ALTER TABLE sweeps DROP COLUMN tune_status; ALTER TABLE sweeps DROP COLUMN tune_report;');
    raw.pragma(`user_version = 10`);
    raw.close();
    const again = openDb(path);
    expect(again.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(getSweep(again, sweepId)).toMatchObject({ name: 'old', tags: [], notes: '', gpu_models: [] });
    again.close();
  });

  it('sets tags and notes, keeps what is not given, and search finds them', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const a = createSweep(db, { name: 'alpha', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan)).sweepId;
    const b = createSweep(db, { name: 'beta', plan, host: 'h', backend: 'sim', simulated: true }, scheduleRuns(plan)).sweepId;
    expect(setSweepNotes(db, a, { tags: ['baseline', 'h100'], notes: 'fans at 100 %' })).toBe(true);
    expect(setSweepNotes(db, a, { notes: 'rerun after BIOS update' })).toBe(true);
    expect(getSweep(db, a)).toMatchObject({ tags: ['baseline', 'h100'], notes: 'rerun after BIOS update' });
    expect(setSweepNotes(db, 999, { notes: 'x' })).toBe(false);
    expect(listSweeps(db, 'baseline').map((s) => s.id)).toEqual([a]);
    expect(listSweeps(db, 'BIOS').map((s) => s.id)).toEqual([a]);
    expect(listSweeps(db).map((s) => s.id)).toEqual([b, a]);
    db.close();
  });
});
