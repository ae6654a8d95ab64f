// A tuning session whose CapLab is killed (kill -9) mid-profile (issue 27): afterwards it reads as interrupted, with
// when it was found gone and what the cap journal restored, at the engine (what the console's tuner panel shows) and
// in `caplab runs`. A real `caplab tune` child process killed with SIGKILL, a real pty job, a real SQLite file.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Engine } from '../../src/main/lab/engine';
import { runCli, startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { journalOwners, labEnv, processesMentioning, setSimLimit, simLimit, waitFor } from '../helpers/lab-env';
import { simJob, tuneArgs } from '../helpers/tune-job';
import type { TuneStatus } from '../../src/shared/tune';

const tmp = tempDir('caplab-tune-interrupted-');
afterAll(() => tmp.cleanup());

/** The stage the session last stored, read beside the running tuner. */
function storedStage(dbPath: string): string | null {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT tune_status FROM sweeps ORDER BY id DESC LIMIT 1').get() as { tune_status: string | null } | undefined;
    return row?.tune_status ? (JSON.parse(row.tune_status) as TuneStatus).stage : null;
  } catch {
    return null;
  } finally {
    db.close();
  }
}

describe('a tuning session killed with SIGKILL', () => {
  it('reads as interrupted: when, what it was doing, and the cap the journal restored', { timeout: 120_000 }, async () => {
    const env = labEnv(join(tmp.dir, 'killed'), 'lab');
    await setSimLimit(env, 660);
    const tune = startCli([...tuneArgs('h100-sxm', 30), '--', ...simJob(env, 'resnet50')], env);
    await waitFor('a profile visit', async () => journalOwners(env).includes(tune.child.pid!) && storedStage(env.CAPLAB_DB!) === 'visit' && (await simLimit(env)) !== 660, 60_000);
    tune.child.kill('SIGKILL');
    expect((await tune.done).signal).toBe('SIGKILL');

    // The next CapLab to open the database finds the process gone; this one restores nothing: the limit is owed.
    const before = await runCli(['runs'], env);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/— interrupted/);
    expect(before.stdout).toMatch(/tuning session interrupted: CapLab was killed while this session was (profiling|holding) \d+ W \(found gone at \d{4}-\d\d-\d\dT[\d:]+Z, when CapLab next opened this database\)\. .*: not restored yet; its limit before the session was 660 W: run caplab restore-caps\./);

    // An engine that restores on open (the app, caplab tune, caplab sweep): the limit is back and the session says so.
    const engine = await Engine.open({ dbPath: env.CAPLAB_DB!, env, restoreOnOpen: true });
    try {
      expect(engine.restoredAtOpen.map((r) => [r.before_w, r.ok])).toEqual([[660, true]]);
      expect(await simLimit(env)).toBe(660);
      const [sweep] = await engine.listSweeps({});
      const st = await engine.getTuneStatus({ sweep_id: sweep!.id });
      expect(st?.stage).toBe('interrupted');
      expect(st?.held_w).toBeNull();
      const i = st!.interrupted!;
      expect(['visit', 'hold']).toContain(i.last_stage);
      expect(i.last_cap_w).toBe(st!.cap_w);
      expect(i.last_cap_w).not.toBeNull();
      expect(i.found_at).toBeGreaterThanOrEqual(sweep!.created_at);
      expect(i.restored).toHaveLength(1);
      expect(i.restored[0]).toMatchObject({ before_w: 660, restored_w: 660, error: null });
      expect(i.restored[0]!.restored_at).toBeGreaterThanOrEqual(i.found_at!);
      expect(st!.note).toMatch(/restored from the journal to 660 W at \S+Z \(its limit before the session\)\.$/);
    } finally {
      await engine.close();
    }
    await waitFor('no process of the job left', () => processesMentioning(env.CAPLAB_SIM_STATE_DIR!).length === 0, 10_000);

    const after = await runCli(['runs', '--json'], env);
    const listed = JSON.parse(after.stdout) as { status: string; tune_status: TuneStatus | null; tune_report: string | null }[];
    expect(listed[0]).toMatchObject({ status: 'interrupted', tune_report: null, tune_status: { stage: 'interrupted' } });
    expect(listed[0]!.tune_status!.note).toMatch(/restored from the journal to 660 W/);
  });
});
