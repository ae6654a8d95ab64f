// How a killed tuning session reads back (tune/interrupted.ts) for each state its journal can be in, on a real SQLite
// file: nothing journalled yet, a restore that failed; a live session and an ended one read as stored.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb, type Db } from '../../../src/main/lab/store/db';
import { createSweep, finishSweep, markInterruptedSweeps, setTuneStatus } from '../../../src/main/lab/store/sweeps';
import { journalLimit, markRestored } from '../../../src/main/lab/store/journal';
import { storedTuneStatus } from '../../../src/main/lab/tune/interrupted';
import { Plan } from '../../../src/shared/plan';
import type { TuneStatus } from '../../../src/shared/tune';
import { tempDir } from '../../helpers/tmp';

const plan = Plan.parse({ workloads: [{ id: 'command' }], caps: [300, 500], repetitions: 1 });
let tmp = tempDir();
afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

const status = (sweep_id: number, stage: TuneStatus['stage'], cap_w: number | null): TuneStatus => ({
  sweep_id, stage, cap_w, held_w: null, visits: 2, profiling_s: 40, profiling_share: 0.1, budget_s: 375, job_s: 400, expected_s: 1500, default_limit_w: 700, note: null,
});

function session(db: Db, stage: TuneStatus['stage'], cap_w: number | null): number {
  const id = createSweep(db, { name: 'tune: job', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
  setTuneStatus(db, id, status(id, stage, cap_w));
  return id;
}

describe('a killed tuning session read back', () => {
  it('killed in warm-up, nothing journalled: interrupted, and says no limit needed restoring', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const id = session(db, 'warmup', null);
    expect(storedTuneStatus(db, id)?.stage).toBe('warmup');
    markInterruptedSweeps(db, () => false);
    const st = storedTuneStatus(db, id)!;
    expect(st.stage).toBe('interrupted');
    expect(st.interrupted).toMatchObject({ last_stage: 'warmup', last_cap_w: null, restored: [] });
    expect(st.note).toMatch(/^interrupted: CapLab was killed while this session was waiting for the job's rate to steady \(found gone at .*Z, .*\)\. no limit had been journalled .*so none was restored\.$/);
    db.close();
  });

  it('a restore that failed names the device, the error and the limit still owed', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const id = session(db, 'hold', 335);
    const row = journalLimit(db, { sweep_id: id, device_key: 'sim:0', backend: 'sim', backend_opts: '{}', idx: 0, device_name: 'H100 #0', before_w: 690 });
    markInterruptedSweeps(db, () => false);
    markRestored(db, [row], null, 'permission denied');
    const st = storedTuneStatus(db, id)!;
    expect(st.interrupted!.restored).toEqual([{ device_name: 'H100 #0', before_w: 690, restored_at: null, restored_w: null, error: 'permission denied' }]);
    expect(st.note).toMatch(/while this session was holding 335 W .*H100 #0: not restored \(permission denied\); its limit before the session was 690 W: run caplab restore-caps\.$/);
    db.close();
  });

  it('a session still running elsewhere, and one that ended, read as stored', () => {
    const db = openDb(join(tmp.dir, 'lab.db'));
    const live = session(db, 'visit', 300);
    const ended = session(db, 'ended', 335);
    finishSweep(db, ended, 'done', null);
    markInterruptedSweeps(db, () => true);
    expect(storedTuneStatus(db, live)).toEqual(status(live, 'visit', 300));
    expect(storedTuneStatus(db, ended)).toEqual(status(ended, 'ended', 335));
    db.close();
  });
});
