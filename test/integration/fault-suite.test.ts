// The fault suite (README, "Reliability"): SIGKILL at random moments of sweeps and of restores, a file-size limit
// and a full disk under the database. After every fault: the limit equals the journalled pre-sweep value (after
// the next start, for SIGKILL), no process of the run is left, the database passes integrity_check, and samples
// read more than ~1 s before the fault are stored. Real CLI processes, real SQLite files, simulated GPUs.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CLI, runCli, startCli, type CliResult } from '../helpers/cli';
import { tempDir } from '../helpers/tmp';
import { SimClock } from '../../src/main/lab/gpu/sim-clock';
import { journalOwners, labEnv, processesMentioning, setSimLimit, simLimit, waitFor, writePlan } from '../helpers/lab-env';

const tmp = tempDir('caplab-faults-');
afterAll(() => tmp.cleanup());

/** At least 100 SIGKILLs in all (CAPLAB_FAULT_KILLS raises it), spread over parallel lanes (separate "hosts"). */
const KILLS = Math.max(100, Number(process.env.CAPLAB_FAULT_KILLS ?? 100));
const LANES = 3;
const SPEEDUP = 20;

const lanePlan = `backend: sim
workloads: [{id: resnet50}]
caps: [250, 300, 350]
warmup: {seconds: 6}
window: {seconds: 12}
cooldown_s: 1
sample_interval_ms: 100
sim: {speedup: ${SPEEDUP}, devices: [h100-sxm]}
`;

/** A seeded generator, so a failing sequence can be replayed (the seed is in the failure message). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function integrity(db: string): string {
  const d = new Database(db, { readonly: true });
  try {
    return d.pragma('integrity_check', { simple: true }) as string;
  } finally {
    d.close();
  }
}

/** The simulated clock of the lane's running workload (its `--clock ORIGIN:SPEEDUP`), to place samples in wall time. */
function workloadClock(simDir: string): SimClock | null {
  for (const pid of processesMentioning(simDir)) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('--clock');
      // The workload's own clock (ORIGIN:SPEEDUP[:START]): a later sweep's simulated time starts after an earlier one's.
      if (at >= 0) return SimClock.parse(argv[at + 1]!);
    } catch {
      // Gone.
    }
  }
  return null;
}

function lastSweepId(db: string): number | null {
  if (!existsSync(db)) return null;
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('SELECT MAX(id) id FROM sweeps').get() as { id: number | null }).id;
  } finally {
    d.close();
  }
}

interface LaneStats {
  kills: number;
  sweepKills: number;
  restoreKills: number;
  sampleChecks: number;
  restoredAfter: number;
}

async function lane(index: number, kills: number, seed: number): Promise<LaneStats> {
  const random = rng(seed);
  const dir = join(tmp.dir, `lane${index}`);
  mkdirSync(dir, { recursive: true });
  const env = labEnv(dir, 'lab');
  const simDir = env.CAPLAB_SIM_STATE_DIR!;
  const plan = writePlan(dir, 'plan', lanePlan);
  const stats: LaneStats = { kills: 0, sweepKills: 0, restoreKills: 0, sampleChecks: 0, restoredAfter: 0 };
  // A limit a killed sweep left behind, which the next start must restore to this value (null: nothing pending).
  let pending: number | null = null;
  for (let cycle = 0; stats.kills < kills; cycle++) {
    const where = `lane ${index} cycle ${cycle} (seed ${seed})`;
    const pre: number = pending ?? 560 + 10 * Math.floor(random() * 14);
    if (pending === null) await setSimLimit(env, pre);
    const lastBefore = lastSweepId(env.CAPLAB_DB!);
    const sweep = startCli(['sweep', plan, '--json'], env);
    // Random moments: one cycle in four anywhere from the start (start-up, restoring what the last one left,
    // journal, first cap); the others some time after the sweep journalled (cap changes, mid-run, cool-down, the
    // final restore).
    let clock: SimClock | null = null;
    const watch = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        clock ??= workloadClock(simDir);
        await new Promise((r) => setTimeout(r, 40));
      }
    };
    if (random() < 0.25) await watch(100 + random() * 3000);
    else {
      await waitFor(`${where}: the sweep's journal`, () => journalOwners(env).includes(sweep.child.pid!), 30_000);
      await watch(200 + random() * 3300);
    }
    const killedAt = Date.now() / 1000;
    sweep.child.kill('SIGKILL');
    // Counted only where the kill really ended the process (not one that had already finished).
    if ((await sweep.done).signal === 'SIGKILL') {
      stats.kills++;
      stats.sweepKills++;
    }
    await waitFor(`${where}: no process of the run left`, () => processesMentioning(simDir).length === 0, 10_000);

    // Every third cycle, also kill a restore part-way.
    if (cycle % 3 === 1 && stats.kills < kills) {
      const restore = startCli(['restore-caps', '--json'], env);
      await new Promise((r) => setTimeout(r, random() * 900));
      restore.child.kill('SIGKILL');
      if ((await restore.done).signal === 'SIGKILL') {
        stats.kills++;
        stats.restoreKills++;
      }
    }

    // The next start restores what a dead owner left: every other cycle restore-caps, else the next sweep, whose
    // journal then shows the value it found (checked below, in the next cycle).
    const last = stats.kills >= kills;
    if (cycle % 2 === 0 || last) {
      const next: CliResult = await runCli(['restore-caps', '--json'], env);
      expect(next.code, `${where}: ${next.stderr}`).toBe(0);
      if ((JSON.parse(next.stdout) as unknown[]).length > 0) stats.restoredAfter++;
      expect(await simLimit(env), `${where}: limit after the next start`).toBe(pre);
      pending = null;
    } else pending = pre;

    if (!existsSync(env.CAPLAB_DB!)) continue;
    expect(integrity(env.CAPLAB_DB!), where).toBe('ok');
    const d = new Database(env.CAPLAB_DB!, { readonly: true });
    try {
      // This cycle's sweep, if the kill came after it was created.
      const id = (d.prepare('SELECT MAX(id) id FROM sweeps').get() as { id: number | null }).id;
      const mine = id !== null && id !== lastBefore ? id : -1;
      const journal = d.prepare('SELECT before_w FROM cap_journal WHERE sweep_id = ?').get(mine) as { before_w: number } | undefined;
      // Also where this sweep was the next start after a kill: it restored first, then journalled that value.
      if (journal) expect(journal.before_w, `${where}: journalled pre-sweep value`).toBe(pre);
      if (pending === null) {
        const open = d.prepare('SELECT COUNT(*) n FROM cap_journal WHERE restored_at IS NULL').get() as { n: number };
        expect(open.n, `${where}: open journal rows`).toBe(0);
      }
      if (clock) {
        const span = d.prepare('SELECT MIN(b.t0) lo, MAX(b.t1) hi FROM sample_blocks b JOIN sample_streams s ON s.id = b.stream_id WHERE s.sweep_id = ?').get(mine) as { lo: number | null; hi: number | null };
        const wall = (t: number) => clock!.realAt(t);
        // Sampling had been going on for over a second: what was read up to a second before the kill is stored.
        if (span.lo !== null && span.hi !== null && wall(span.lo) < killedAt - 1.5) {
          expect(wall(span.hi), `${where}: last stored sample vs the kill`).toBeGreaterThanOrEqual(killedAt - 1.0);
          stats.sampleChecks++;
        }
      }
    } finally {
      d.close();
    }
  }
  return stats;
}

/** Runs a sweep under a shell that first limits the size of any file it writes (ulimit -f, in KiB). */
function sweepWithFileLimit(planFile: string, env: NodeJS.ProcessEnv, kib: number): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `ulimit -f ${kib} && exec "$0" "$1" sweep "$2" --json`, process.execPath, CLI, planFile], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

interface FailedSweep {
  status: string;
  error: string | null;
  restored: { before_w: number; ok: boolean }[];
}

async function expectCleanWriteFailure(r: CliResult, env: NodeJS.ProcessEnv, pre: number): Promise<void> {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.code, r.stderr).toBe(1);
  const out = JSON.parse(r.stdout) as FailedSweep;
  expect(out.status).toBe('failed');
  expect(out.error).toMatch(/could not write to the database/);
  expect(out.restored).toEqual([expect.objectContaining({ before_w: pre, ok: true })]);
  expect(await simLimit(env)).toBe(pre);
  expect(processesMentioning(env.CAPLAB_SIM_STATE_DIR!)).toEqual([]);
  expect(integrity(env.CAPLAB_DB!)).toBe('ok');
}

const longPlan = lanePlan.replace('caps: [250, 300, 350]', 'caps: {from: 250, to: 650, step: 50}\nrepetitions: 4');

describe('fault suite', () => {
  it(`${KILLS} SIGKILLs at random moments across sweeps and restores: limits back, nothing left running, database intact, samples kept`, { timeout: 600_000 }, async () => {
    const seed = Number(process.env.CAPLAB_FAULT_SEED ?? Date.now() % 100_000);
    const per = Math.ceil(KILLS / LANES);
    const all = await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i, per, seed + i)));
    const total = all.reduce((a, s) => ({ kills: a.kills + s.kills, sweepKills: a.sweepKills + s.sweepKills, restoreKills: a.restoreKills + s.restoreKills, sampleChecks: a.sampleChecks + s.sampleChecks, restoredAfter: a.restoredAfter + s.restoredAfter }));
    console.log(`fault suite: ${JSON.stringify(total)} (seed ${seed})`);
    expect(total.kills).toBeGreaterThanOrEqual(100);
    // The random moments must really hit sweeps that had changed a limit and were sampling.
    expect(total.restoredAfter).toBeGreaterThan(total.sweepKills / 4);
    expect(total.sampleChecks).toBeGreaterThan(total.sweepKills / 5);
  });

  it('a file-size limit (ulimit -f) hit by the sample writer: the sweep stops, restores first, fails with the error in its JSON', { timeout: 120_000 }, async () => {
    // Above a fresh database with its migrations (about 120 KiB and its WAL), so the limit is hit by the sample writer.
    for (const kib of [320, 640]) {
      const dir = join(tmp.dir, `fsize${kib}`);
      const env = labEnv(dir, 'lab');
      const pre = 615;
      await setSimLimit(env, pre);
      const r = await sweepWithFileLimit(writePlan(dir, 'plan', longPlan), env, kib);
      await expectCleanWriteFailure(r, env, pre);
    }
  });

  const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;
  it.skipIf(!canMount)('a full disk under the database (a 1 MB tmpfs; needs root to mount): the sweep stops, restores first, and records its failure', { timeout: 120_000 }, async () => {
    const dir = join(tmp.dir, 'full');
    const mnt = join(dir, 'mnt');
    mkdirSync(mnt, { recursive: true });
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]).status).toBe(0);
    try {
      const env = labEnv(dir, 'lab', join(mnt, 'lab.db'));
      const pre = 625;
      await setSimLimit(env, pre);
      const r = await runCli(['sweep', writePlan(dir, 'plan', longPlan), '--json'], env);
      await expectCleanWriteFailure(r, env, pre);
      const d = new Database(env.CAPLAB_DB!, { readonly: true });
      const row = d.prepare('SELECT status, error FROM sweeps ORDER BY id DESC LIMIT 1').get() as { status: string; error: string };
      d.close();
      expect(row.status).toBe('failed');
      expect(row.error).toMatch(/could not write to the database/);
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  });
});
