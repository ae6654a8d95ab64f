// The fault suite of `caplab tune` (issue 27): kill -9 of the tuner at random moments, a job that crashes, a job that
// hangs, Ctrl-C and SIGTERM. Afterwards the limit is the journalled pre-session value (after the next start, for
// kill -9) and no process of the job is left. Real CLI processes, real ptys, real SQLite files, simulated GPUs.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { journalOwners, labEnv, processesMentioning, setSimLimit, simLimit, waitFor } from '../helpers/lab-env';
import { simJob, tuneArgs } from '../helpers/tune-job';
import type { TuneReport } from '../../src/main/lab/tune/session';

const tmp = tempDir('caplab-tune-faults-');
afterAll(() => tmp.cleanup());

/** At least 30 SIGKILLs in all (CAPLAB_FAULT_KILLS raises it), over parallel lanes (separate "hosts"). */
const KILLS = Math.max(30, Number(process.env.CAPLAB_FAULT_KILLS ?? 30));
const LANES = 3;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function lab(name: string): NodeJS.ProcessEnv {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  return labEnv(dir, 'lab');
}

async function lane(index: number, kills: number, seed: number): Promise<{ kills: number; afterJournal: number }> {
  const random = rng(seed);
  const env = lab(`lane${index}`);
  const simDir = env.CAPLAB_SIM_STATE_DIR!;
  let done = 0;
  let afterJournal = 0;
  for (let cycle = 0; done < kills; cycle++) {
    const where = `lane ${index} cycle ${cycle} (seed ${seed})`;
    const pre = 560 + 10 * Math.floor(random() * 14);
    await setSimLimit(env, pre);
    const tune = startCli([...tuneArgs('h100-sxm', 60), '--', ...simJob(env, 'resnet50')], env);
    // One cycle in four anywhere from the start (start-up, journal, first steps); the others after the journal
    // (warm-up, cap changes, visits, the hold).
    if (random() < 0.25) await new Promise((r) => setTimeout(r, 100 + random() * 3000));
    else {
      await waitFor(`${where}: the journal`, () => journalOwners(env).includes(tune.child.pid!), 30_000);
      afterJournal++;
      await new Promise((r) => setTimeout(r, 200 + random() * 3500));
    }
    tune.child.kill('SIGKILL');
    if ((await tune.done).signal === 'SIGKILL') done++;
    const next = await runCli(['restore-caps', '--json'], env);
    expect(next.code, `${where}: ${next.stderr}`).toBe(0);
    expect(await simLimit(env), `${where}: limit after the next start`).toBe(pre);
    await waitFor(`${where}: no process of the job left`, () => processesMentioning(simDir).length === 0, 10_000);
  }
  return { kills: done, afterJournal };
}

describe('caplab tune faults', () => {
  it(`kill -9 of caplab tune at random moments (${KILLS} kills): the next start restores the journalled limit and ends the job`, async () => {
    const per = Math.ceil(KILLS / LANES);
    const seed = Number(process.env.CAPLAB_FAULT_SEED ?? Date.now() % 100000);
    const stats = await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i, per, seed + i)));
    expect(stats.reduce((a, s) => a + s.kills, 0)).toBeGreaterThanOrEqual(KILLS);
    expect(stats.reduce((a, s) => a + s.afterJournal, 0)).toBeGreaterThan(0);
  }, 600_000);

  it('a job that crashes: its exit code is passed on, the limit restored, nothing left', async () => {
    const env = lab('crash');
    await setSimLimit(env, 650);
    const r = await runCli([...tuneArgs('h100-sxm', 60), '--', ...simJob(env, 'resnet50', ['--fail-after-s', '90'])], env);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as TuneReport;
    expect(report.status).toBe('failed');
    expect(report.error).toMatch(/exited with code 1/);
    expect(report.visits.length).toBeGreaterThan(0);
    expect(await simLimit(env)).toBe(650);
    expect(processesMentioning(env.CAPLAB_SIM_STATE_DIR!)).toEqual([]);
  }, 120_000);

  it('a job that hangs: it is ended after --hang-timeout and the limit restored', async () => {
    const env = lab('hang');
    await setSimLimit(env, 640);
    const r = await runCli([...tuneArgs('h100-sxm', 60, ['--hang-timeout', '3']), '--', ...simJob(env, 'resnet50', ['--hang-after-s', '90'])], env);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as TuneReport;
    expect(report.error).toMatch(/hung: no output for 3 s/);
    expect(await simLimit(env)).toBe(640);
    expect(processesMentioning(env.CAPLAB_SIM_STATE_DIR!)).toEqual([]);
  }, 120_000);

  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${sig} while profiling: the limit is back, the job ended, exit ${code}`, async () => {
      const env = lab(sig);
      await setSimLimit(env, 660);
      const tune = startCli([...tuneArgs('h100-sxm', 30), '--', ...simJob(env, 'resnet50')], env);
      // Profiling has begun: a cap other than the journalled value is set.
      await waitFor('a profile visit', async () => journalOwners(env).includes(tune.child.pid!) && (await simLimit(env)) !== 660, 60_000);
      tune.child.kill(sig);
      const r = await tune.done;
      expect(r.code, r.stderr).toBe(code);
      expect((JSON.parse(r.stdout) as TuneReport).status).toBe('cancelled');
      expect(await simLimit(env)).toBe(660);
      expect(processesMentioning(env.CAPLAB_SIM_STATE_DIR!)).toEqual([]);
      expect(journalOwners(env)).toEqual([]);
    }, 120_000);
  }
});
