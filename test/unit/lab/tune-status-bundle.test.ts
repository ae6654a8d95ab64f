// A tuning session's stored outcome and end report travel in the sweep JSON bundle (issue 27): exported from one real
// SQLite file, imported into a fresh one through the importer `caplab import` uses, they read back the same, under the
// new sweep id.
import { afterEach, describe, expect, it } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../../../src/main/lab/store/db';
import { appendRuns, createSweep, getSweep, getTuneStatus, markInterruptedSweeps, setTuneReport, setTuneStatus } from '../../../src/main/lab/store/sweeps';
import { journalLimit, markRestored } from '../../../src/main/lab/store/journal';
import { storedTuneStatus } from '../../../src/main/lab/tune/interrupted';
import { sweepBundle } from '../../../src/main/lab/exporters/bundle';
import { importBundleFile } from '../../../src/main/lab/datasets/bundle-import';
import { Plan } from '../../../src/shared/plan';
import { ExportBundle } from '../../../src/shared/export';
import type { TuneStatus } from '../../../src/shared/tune';
import { tempDir } from '../../helpers/tmp';

const plan = Plan.parse({ workloads: [{ id: 'command' }], caps: [300, 500], repetitions: 1 });
let tmp = tempDir();

afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

const ended = (sweep_id: number): TuneStatus => ({
  sweep_id, stage: 'ended', cap_w: 335, held_w: 335, visits: 1, profiling_s: 370.25, profiling_share: 0.2017, budget_s: 375, job_s: 1834.5, expected_s: 1500, default_limit_w: 700,
  note: 'held 335 W: profiling budget spent (370 of 375 s)',
  outcome: {
    hold_reason: 'budget', hold_note: 'profiling budget spent (370 of 375 s)', energy_j: 612400, saved_j: { value: 52340, ci: [41020, 63660] }, saved_fraction: { value: 0.0787, ci: [0.0629, 0.0942] },
    slowdown: { value: 0.012, ci: [0.008, 0.016] }, savings_note: null, profiling_off_cap_s: 210.5, reprofiles: 0, phase_changes: [],
  },
});

const REPORT = 'tune session 2: done [simulated]\ncap held        335 W (profiling budget spent)\nslowdown        1.2 % (95 % interval 0.8 to 1.6 %)\n';

async function exportAndImport(sourceDb: string, sweepId: number, name: string): Promise<{ id: number; target: ReturnType<typeof openDb> }> {
  const src = openDb(sourceDb);
  const file = join(tmp.dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(sweepBundle(src, sweepId)));
  src.close();
  const target = openDb(join(tmp.dir, `${name}-fresh.db`));
  const got = await importBundleFile(target, { path: file, bytes: statSync(file).size, format: 'caplab-json' });
  if (got.kind !== 'sweep') throw new Error('a sweep bundle came back as a dataset');
  return { id: got.sweep.sweep_id, target };
}

describe("a tuning session's outcome in the sweep JSON bundle", () => {
  it('round-trips: export, import into a fresh database, the same status under the new sweep id', async () => {
    const path = join(tmp.dir, 'lab.db');
    const db = openDb(path);
    // An unrelated sweep first, so the session's id differs from the id it gets in the fresh database.
    createSweep(db, { name: 'a sweep', plan, host: 'h', backend: 'sim', simulated: true }, []);
    const s = createSweep(db, { name: 'tune: job', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    appendRuns(db, s, [{ workload: 'command', cap_w: 335, repetition: 1, order: 0 }]);
    setTuneStatus(db, s, ended(s));
    setTuneReport(db, s, REPORT);
    db.close();

    const { id, target } = await exportAndImport(path, s, 'tune');
    expect(id).not.toBe(s);
    expect(getTuneStatus(target, id)).toEqual(ended(id));
    expect(getSweep(target, id)!.tune_report).toBe(REPORT);
    target.close();
  });

  it("a killed session's keeps what its own database's journal restored (the journal stays behind)", async () => {
    const path = join(tmp.dir, 'lab.db');
    const db = openDb(path);
    const s = createSweep(db, { name: 'tune: job', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    setTuneStatus(db, s, { ...ended(s), stage: 'visit', held_w: null, note: null, outcome: undefined });
    const row = journalLimit(db, { sweep_id: s, device_key: 'sim:0', backend: 'sim', backend_opts: '{}', idx: 0, device_name: 'H100 #0', before_w: 690 });
    markInterruptedSweeps(db, () => false);
    markRestored(db, [row], 690, null);
    const there = storedTuneStatus(db, s)!;
    expect(there.note).toMatch(/H100 #0: restored from the journal to 690 W at /);
    db.close();
    const { id, target } = await exportAndImport(path, s, 'killed');
    expect(storedTuneStatus(target, id)).toEqual({ ...there, sweep_id: id });
    target.close();
  });

  it('a plain sweep carries none, and a bundle written before the field existed imports as none', async () => {
    const path = join(tmp.dir, 'lab.db');
    const db = openDb(path);
    const s = createSweep(db, { name: 'a sweep', plan, host: 'h', backend: 'sim', simulated: true }, []).sweepId;
    const bundle = sweepBundle(db, s);
    expect(bundle.tune_status).toBeNull();
    const { tune_status: _, ...older } = bundle;
    expect(ExportBundle.parse(older).tune_status).toBeNull();
    db.close();
    const { id, target } = await exportAndImport(path, s, 'plain');
    expect(getTuneStatus(target, id)).toBeNull();
    expect(getSweep(target, id)!.tune_report).toBeNull();
    target.close();
  });
});
