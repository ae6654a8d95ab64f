// The app's door to `caplab tune` (issue 27): startTune / cancelTune through the engine and the contract's dispatch,
// as the browser host and the Electron IPC call them. A simulated job (`caplab sim-workload`, a real child process
// in a real pty) on a simulated H100, a real SQLite file: the session streams the sweep events and tune.status,
// records its visits as runs, restores the journalled limit, and ends at once when cancelled.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { dispatch } from '../../src/main/host/dispatch';
import type { EventArgs } from '../../src/shared/api';
import type { TuneStatus } from '../../src/shared/tune';
import { tempDir } from '../helpers/tmp';
import { labEnv, processesMentioning, setSimLimit, simLimit, waitFor } from '../helpers/lab-env';
import { simJob } from '../helpers/tune-job';

const tmp = tempDir('caplab-tune-engine-');
afterAll(() => tmp.cleanup());

async function openLab(name: string): Promise<{ engine: Engine; env: NodeJS.ProcessEnv; events: EventArgs[] }> {
  const env = { ...process.env, ...labEnv(join(tmp.dir, name), 'lab') };
  await setSimLimit(env, 690);
  const engine = await Engine.open({ dbPath: env.CAPLAB_DB!, env });
  const events: EventArgs[] = [];
  engine.subscribe((...e) => events.push(e));
  return { engine, env, events };
}

const statuses = (events: EventArgs[]): TuneStatus[] => events.flatMap((e) => (e[0] === 'tune.status' ? [e[1]] : []));
const named = (events: EventArgs[], name: EventArgs[0]) => events.filter((e) => e[0] === name);

describe('startTune / cancelTune (the app\'s "Tune a job")', () => {
  it('runs a simulated job under a tuning session, streams it live, records the visits as a sweep and restores the limit', { timeout: 180_000 }, async () => {
    const { engine, env, events } = await openLab('run');
    try {
      // The contract's dispatch validates as the transports do: a shell string is not an argv.
      const bad = await dispatch(engine, 'startTune', { argv: 'python train.py' });
      expect(bad).toMatchObject({ ok: false, error: { code: 'invalid' } });
      expect(bad.ok ? '' : bad.error.error).toMatch(/startTune: input\.argv/);
      const unknown = await dispatch(engine, 'startTune', { argv: ['true'], adapter: 'nope' });
      expect(unknown.ok ? '' : unknown.error.error).toMatch(/startTune\.adapter: must be auto or one of .*protocol/);
      const nowhere = await dispatch(engine, 'startTune', { argv: ['true'], cwd: join(tmp.dir, 'no-such-folder') });
      expect(nowhere.ok ? '' : nowhere.error.error).toMatch(/startTune\.cwd: ".*no-such-folder" is not a folder on this machine/);
      const badCaps = await dispatch(engine, 'startTune', { argv: ['true'], caps: '300:200:50' });
      expect(badCaps.ok ? '' : badCaps.error.error).toMatch(/^startTune\.caps: 300:200:50: needs FROM <= TO/);
      expect(await engine.listSweeps({})).toEqual([]);

      // 3,000 steps of about 0.45 simulated s at 100x (about 15 s), a quarter of the 1,500 s job for profiling.
      const r = await dispatch(engine, 'startTune', {
        argv: simJob(env, 'vit_l_16', ['--max-steps', '3000']),
        backend: 'sim',
        sim_speedup: 100,
        sim_devices: ['h100-sxm'],
        job_seconds: 1500,
        max_profile_share: 0.25,
      });
      if (!r.ok) throw new Error(r.error.error);
      const { sweep_id } = r.value as { sweep_id: number };
      await waitFor('the session to end', () => named(events, 'sweep.finished').length > 0, 150_000);

      const finished = named(events, 'sweep.finished')[0]![1] as { sweep_id: number; status: string; restored: { before_w: number; ok: boolean }[] };
      expect(finished).toMatchObject({ sweep_id, status: 'done' });
      expect(finished.restored.map((x) => [x.before_w, x.ok])).toEqual([[690, true]]);
      expect(await simLimit(env)).toBe(690);
      expect(processesMentioning(env.CAPLAB_SIM_STATE_DIR!)).toEqual([]);

      // Live: the stages in order, the cap set during visits, the held cap, the profiling share within its budget.
      const st = statuses(events).filter((s) => s.sweep_id === sweep_id);
      const stages = st.map((s) => s.stage).filter((s, i, a) => s !== a[i - 1]);
      expect(stages[0]).toBe('warmup');
      expect(stages).toContain('visit');
      expect(stages.at(-1)).toBe('ended');
      expect(stages.at(-2)).toBe('hold');
      const last = st.at(-1)!;
      expect(last.held_w).not.toBeNull();
      expect(last.visits).toBeGreaterThanOrEqual(10);
      expect(last.budget_s).toBeCloseTo(375, 6);
      expect(last.profiling_share).toBeGreaterThan(0);
      expect(last.profiling_share).toBeLessThanOrEqual(1);
      expect(last.note).toMatch(new RegExp(`^held ${last.held_w} W`));
      for (const s of st.filter((x) => x.stage === 'visit')) expect(s.cap_w).not.toBeNull();
      // The console's traces and terminal: samples, per-step throughput and the job's own output.
      expect(named(events, 'sweep.started').map((e) => e[1])).toEqual([{ sweep_id, run_count: 0, simulated: true }]);
      expect(named(events, 'samples').length).toBeGreaterThan(10);
      expect(named(events, 'throughput').length).toBeGreaterThan(100);
      expect(named(events, 'pty.data').map((e) => (e[1] as { data: string }).data).join('')).toMatch(/caplab-sim: ViT-L\/16/);

      // History and Results read the session as any sweep: its visits are its runs, one run.finished each.
      const { sweep, runs } = await engine.getSweep({ sweep_id });
      expect(sweep.status).toBe('done');
      expect(sweep.name).toMatch(/^tune: .*sim-workload --workload vit_l_16/);
      expect(runs.length).toBe(last.visits);
      expect(named(events, 'run.finished').length).toBe(runs.length);
      expect(runs.every((x) => x.status === 'done' && x.workload === 'command')).toBe(true);
      expect((await engine.listSweeps({})).map((s) => s.id)).toEqual([sweep_id]);
      const analysis = await engine.analyzeSweep({ sweep_id });
      expect(analysis.groups.map((g) => g.workload)).toEqual(['command']);
      expect(runs.map((x) => x.cap_w)).toContain(analysis.groups[0]!.optima['max-efficiency']!.cap_w);
      // The outcome is stored: a console opened after the end shows what the live one last showed.
      expect(await engine.getTuneStatus({ sweep_id })).toEqual(last);
      await expect(engine.getTuneStatus({ sweep_id: sweep_id + 100 })).rejects.toThrow(`no sweep ${sweep_id + 100}`);
    } finally {
      await engine.close();
    }
  });

  it('cancel (the console\'s Cancel sweep, or cancelTune) ends the job and restores the journalled limit at once', { timeout: 120_000 }, async () => {
    const { engine, env, events } = await openLab('cancel');
    const cwd = join(tmp.dir, 'cancel', 'job-folder');
    mkdirSync(cwd, { recursive: true });
    try {
      const { sweep_id } = await engine.startTune({
        argv: simJob(env, 'vit_l_16', ['--max-steps', '1000000']),
        cwd,
        backend: 'sim',
        sim_speedup: 20,
        sim_devices: ['h100-sxm'],
        caps: '300:600:100',
      });
      await waitFor('the first visit', () => statuses(events).some((s) => s.stage === 'visit'), 90_000);
      const visiting = statuses(events).find((s) => s.stage === 'visit')!;
      expect([300, 400, 500, 600, 700]).toContain(visiting.cap_w);
      // The job runs in the folder given.
      const job = processesMentioning(env.CAPLAB_SIM_STATE_DIR!);
      expect(job.length).toBeGreaterThan(0);
      expect(job.map((pid) => readlinkSync(`/proc/${pid}/cwd`))).toContain(cwd);
      // One session or sweep at a time per engine, refused before anything is written.
      await expect(engine.startTune({ argv: ['true'], backend: 'sim' })).rejects.toThrow(`tuning session ${sweep_id} is still running`);
      expect(await engine.cancelTune({ sweep_id: sweep_id + 100 })).toEqual({ cancelled: false });
      expect(await engine.cancelSweep({ sweep_id })).toEqual({ cancelled: true });
      expect(await simLimit(env)).toBe(690);
      const finished = named(events, 'sweep.finished').map((e) => e[1] as { status: string; error: string | null });
      expect(finished).toEqual([expect.objectContaining({ status: 'cancelled', error: 'cancelled from the app' })]);
      expect((await engine.getSweep({ sweep_id })).sweep.status).toBe('cancelled');
      expect(await engine.getTuneStatus({ sweep_id })).toMatchObject({ sweep_id, stage: 'ended', visits: statuses(events).at(-1)!.visits });
      await waitFor('the job\'s processes to be gone', () => processesMentioning(env.CAPLAB_SIM_STATE_DIR!).length === 0, 10_000);
      // Ended: a second cancel has nothing to do, and a new session may start.
      expect(await engine.cancelTune({ sweep_id })).toEqual({ cancelled: false });
    } finally {
      await engine.close();
    }
  });
});
