// What a new user typing the CLI meets (issue #29, "CLI:"): a missing plan file named in words, a mistyped workload
// or command with a suggestion, an --out-dir that does not exist yet, the runs CSV saying why a completed run's exit
// code is 143, and a cluster script that starts caplab from its real path, not through npx's cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, runCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { labEnv, recordSimSweeps } from '../helpers/sim-sweep';
import { writePlan } from '../helpers/lab-env';

const tmp = tempDir('caplab-cli-msg-');
afterAll(() => tmp.cleanup());
const env = labEnv(tmp.dir);
let sweepId = 0;

beforeAll(async () => {
  sweepId = (await recordSimSweeps(tmp.dir, ['h100-sxm'], { caps: [300, 500], repetitions: 1, warmup: { seconds: 5 }, window: { seconds: 5 } }))[0]!;
});

describe('CLI messages', () => {
  it('names a missing plan file in words, exit 2', async () => {
    const r = await runCli(['sweep', join(tmp.dir, 'missing.yaml')], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no such file: ${join(tmp.dir, 'missing.yaml')}`);
    expect(r.stderr).not.toMatch(/ENOENT/);
  });

  it('suggests the workload meant by a mistyped id, exit 2, nothing run', async () => {
    const plan = writePlan(tmp.dir, 'typo', 'name: typo\nbackend: sim\nworkloads: [{ id: resnet5O }]\ncaps: [300]\n');
    const r = await runCli(['sweep', plan, '--json'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('workloads.0.id: unknown workload "resnet5O" (did you mean "resnet50"?)');
  });

  it('says a bad batch_size once (the definition message), not twice with the simulation one', async () => {
    const plan = writePlan(tmp.dir, 'bs', 'name: bs\nbackend: sim\nworkloads: [{ id: vit_l_16, params: { batch_size: -5 } }]\ncaps: [300]\n');
    const r = await runCli(['sweep', plan, '--check'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('workloads.0.params.batch_size: must be an integer between 1 and 8192, got -5');
    expect(r.stderr.match(/batch_size/g)).toHaveLength(1);
  });

  it('suggests the command meant by a mistyped one', async () => {
    const r = await runCli(['devics'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('caplab: unknown command "devics" (did you mean "devices"?)');
  });

  it('takes the common options before the command too (caplab --db FILE --json runs)', async () => {
    const db = env.CAPLAB_DB!;
    const { CAPLAB_DB: _unset, ...noDb } = env;
    const before = await runCli(['--db', db, '--json', 'runs'], noDb);
    const after = await runCli(['runs', '--db', db, '--json'], noDb);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toBe(after.stdout);
    expect(JSON.stringify(JSON.parse(before.stdout))).toContain(`"id":${sweepId}`);
    const eq = await runCli([`--db=${db}`, 'runs', '--json'], noDb);
    expect(eq.stdout).toBe(after.stdout);
    // One the command does not take is refused by that command, by name.
    const wrong = await runCli(['--backend', 'sim', 'runs'], noDb);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/caplab runs: .*--backend/);
  });

  it('creates the --out-dir of export analysis', async () => {
    const dir = join(tmp.dir, 'not', 'there', 'yet');
    const r = await runCli(['export', 'analysis', String(sweepId), '--out-dir', dir, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const written = (JSON.parse(r.stdout) as { written: { path: string }[] }).written;
    expect(written.length).toBeGreaterThan(0);
    for (const w of written) expect(existsSync(w.path) && w.path.startsWith(dir)).toBe(true);
  });

  it('says in the runs CSV why a completed run exited with a non-zero code', async () => {
    const csv = join(tmp.dir, 'runs.csv');
    const r = await runCli(['export', 'runs', String(sweepId), '--csv', csv], env);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = readFileSync(csv, 'utf8').trim().split('\n').map((l) => l.split(','));
    const col = (name: string) => header!.indexOf(name);
    expect(col('exit_note')).toBeGreaterThan(col('exit_code'));
    expect(rows.length).toBe(2);
    // The simulated workload runs until CapLab stops it at the end of its window (143), unless under load it reaches
    // its own end first (0): every row must then say which, as below.
    for (const row of rows) {
      expect(row[col('status')]).toBe('done');
      const code = Number(row[col('exit_code')]);
      if (code === 0) expect(row[col('exit_note')]).toBe('');
      else expect(row[col('exit_note')]).toMatch(/^stopped by CapLab at the end of its window/);
    }
  });

  it('writes a cluster script that starts caplab from its real path when started through a link (npx)', () => {
    const npxBin = join(tmp.dir, '_npx', 'abc123', 'node_modules', '.bin');
    mkdirSync(npxBin, { recursive: true });
    symlinkSync(CLI, join(npxBin, 'caplab'));
    const r = spawnSync(process.execPath, [join(npxBin, 'caplab'), 'cluster', 'submit', 'resources/plans/demo-sim.yaml', '--nodes', '2', '--dry-run', '--json'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const script = (JSON.parse(r.stdout) as { script: string }).script;
    expect(script).toContain(CLI);
    expect(script).not.toContain('_npx');
  });
});
