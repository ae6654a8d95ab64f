// A database written by CapLab 0.1.0 (test/fixtures/release-0.1.0, made by its make.ts with that release's CLI)
// opens, is copied aside, migrates in place and shows the same sweeps, runs and analysis.
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { expectSameJson } from '../helpers/json-close';

const fixture = join(process.cwd(), 'test/fixtures/release-0.1.0');
const tmp = tempDir();
afterAll(() => tmp.cleanup());
const db = join(tmp.dir, 'lab.db');
copyFileSync(join(fixture, 'lab.db'), db);
const env = { CAPLAB_DB: db, CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: tmp.dir };
const before = JSON.parse(readFileSync(join(fixture, 'runs.json'), 'utf8')) as { id: number; runs: unknown[] }[];

describe('a 0.1.0 database', () => {
  it('migrates in place after a backup copy and lists the same sweeps and runs', async () => {
    const r = await runCli(['runs', '--json'], env);
    expect(r.stderr).toMatch(/migrated .*schema 1 -> \d+; the copy from before is at .*lab\.db\.v1\.bak/);
    expect(r.code).toBe(0);
    const after = JSON.parse(r.stdout) as typeof before;
    expect(after.map((s) => s.id)).toEqual(before.map((s) => s.id));
    // Stored facts are unchanged; every field the old release printed is there with the same value.
    for (const [i, s] of before.entries()) {
      const { runs, ...sweep } = s;
      expect(after[i]).toMatchObject(sweep);
      for (const [k, run] of (runs as Record<string, unknown>[]).entries()) {
        for (const key of ['id', 'workload', 'cap_w', 'repetition', 'status', 'started_at', 'measure_start', 'measure_end', 'units', 'throughput', 'energy_j', 'mean_power_w']) {
          expect((after[i]!.runs[k] as Record<string, unknown>)[key], `sweep ${s.id} run ${k} ${key}`).toEqual(run[key]);
        }
      }
    }
    expect(existsSync(`${db}.v1.bak`)).toBe(true);
    const backup = new Database(`${db}.v1.bak`, { readonly: true });
    expect(backup.pragma('user_version', { simple: true })).toBe(1);
    expect((backup.prepare('SELECT COUNT(*) AS n FROM samples').get() as { n: number }).n).toBeGreaterThan(3000);
    backup.close();
  });

  it.each([1, 2])('analyses sweep %i the same as 0.1.0 did (samples round-trip the block store)', async (id) => {
    const r = await runCli(['analyze', String(id), '--json'], env);
    expect(r.code).toBe(0);
    const old = JSON.parse(readFileSync(join(fixture, `analyze-${id}.json`), 'utf8'));
    // What was measured, run by run, must match; the verdicts on top (flags, usability, group statistics) belong to
    // the analysis version and legitimately change as it improves.
    type Run = Record<string, unknown> & { devices: Record<string, unknown>[]; cpu: Record<string, unknown>[] };
    const facts = (x: { runs: Run[] }) =>
      x.runs.map((run) => ({
        ...Object.fromEntries(['run_id', 'cap_w', 'window', 'duration_s', 'units_total', 'throughput', 'gpu_energy_j', 'node', 'mean_power_w', 'efficiency', 'energy_sensor'].map((k) => [k, run[k]])),
        devices: [...run.devices, ...run.cpu].map((d) => ({ device_id: d.device_id, energy_j: d.energy_j, mean_w: d.mean_w, sensor: d.sensor })),
      }));
    expectSameJson(facts(JSON.parse(r.stdout)), facts(old), { relTol: 1e-4, absTol: 1e-6, ignore: ['warnings'] });
  });

  it('says so when a read-only command (export, report) is the first to open it', async () => {
    const copy = join(tmp.dir, 'export-first.db');
    copyFileSync(join(fixture, 'lab.db'), copy);
    const r = await runCli(['export', 'runs', '1', '--csv', join(tmp.dir, 'runs-1.csv'), '--db', copy], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^caplab: migrated .*export-first\.db from schema 1 -> \d+; the copy from before is at .*export-first\.db\.v1\.bak/m);
    expect(existsSync(`${copy}.v1.bak`)).toBe(true);
  });

  it('opens again without migrating or copying', async () => {
    const r = await runCli(['runs', '--json'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/migrated/);
  });
});
