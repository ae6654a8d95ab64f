// The tune slice (src/shared/api/tune.ts): a job run under a tuning session (beginTune, also `caplab tune`'s door),
// its cancel and its stored status.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import { adapterNames, getAdapter } from '../../../core/adapters';
import { CapGridError, parseCaps } from '../../../core/tune/grid';
import { LabError } from '../../../shared/errors';
import { TuneStart } from '../../../shared/tune';
import type { BeginOptions, EngineContext } from '../engine-context';
import { openLabBackend } from '../gpu/lab-backend';
import { NotFoundError } from '../input/errors';
import { getSweep } from '../store/sweeps';
import { takeCaps } from '../sweep/engine-caps';
import { storedTuneStatus } from './interrupted';
import { startTune, type StartedTune, type TuneRequest } from './start';

export class TuneService implements SliceApi<'tune'> {
  constructor(private readonly ctx: EngineContext) {}

  /** `caplab tune -- CMD`: the job runs under a tuning session on leased, journalled devices (src/main/lab/tune). */
  async beginTune(req: TuneRequest, out: { onOutput: (d: string) => void; onNote: (l: string) => void }, opts: BeginOptions = {}): Promise<StartedTune> {
    const { ctx } = this;
    ctx.writable('tune a job');
    ctx.running.refuseWhileBusy();
    const started = await startTune(
      {
        db: ctx.db,
        host: ctx.host,
        env: ctx.env,
        openLab: (plan) => openLabBackend(ctx.backend ?? plan.backend, { env: ctx.env, plan, onPty: ctx.running.handlePty }),
        takeCaps: (lab, devices) => takeCaps(ctx, lab, devices, opts),
        emit: (...e) => ctx.emit(...e),
      },
      req,
      out,
    );
    const { session } = started;
    ctx.running.tunes.set(session.sweepId, session);
    void session.done.finally(() => ctx.running.tunes.delete(session.sweepId));
    return started;
  }

  /** The app's "Tune a job": startTune's fields as `caplab tune`'s options; the job's output streams as pty.data. */
  async startTune(input: MethodInput<'startTune'>): Promise<MethodOutput<'startTune'>> {
    const t = TuneStart.parse(input);
    const adapter = t.adapter ?? (t.pattern ? 'regex' : 'auto');
    if (adapter !== 'auto' && !getAdapter(adapter)) throw new LabError('invalid', `startTune.adapter: must be auto or one of ${adapterNames.join(', ')}; got "${adapter}"`);
    if (t.cwd !== undefined && !(isAbsolute(t.cwd) && existsSync(t.cwd) && statSync(t.cwd).isDirectory())) {
      throw new LabError('invalid', `startTune.cwd: "${t.cwd}" is not a folder on this machine (give an absolute path)`);
    }
    let caps = t.caps;
    if (typeof caps === 'string') {
      try {
        caps = parseCaps(caps);
      } catch (e) {
        if (e instanceof CapGridError) throw new LabError('invalid', `startTune.caps: ${e.message.replace(/^--caps /, '')}`);
        throw e;
      }
    }
    const started = await this.beginTune(
      {
        argv: t.argv,
        backend: t.backend ?? 'auto',
        devices: t.devices,
        sim: { speedup: t.sim_speedup, ...(t.sim_devices ? { presets: t.sim_devices } : {}) },
        selector: t.selector,
        caps: caps === null ? null : [...new Set(caps)].sort((a, b) => a - b),
        adapter,
        file: t.file !== null && t.cwd !== undefined ? resolve(t.cwd, t.file) : t.file,
        pattern: t.pattern,
        units: t.units,
        margin: t.margin,
        max_profile_share: t.max_profile_share,
        expected_s: t.job_seconds,
        seed: t.seed,
        overhead_w: t.overhead_w,
        rate_timeout_s: t.rate_timeout_s,
        hang_timeout_s: t.hang_timeout_s,
        hold_w: t.hold_w,
        cwd: t.cwd,
      },
      // The app sees the output through pty.data and the notes through tune.status.
      { onOutput: () => undefined, onNote: () => undefined },
    );
    return { sweep_id: started.session.sweepId };
  }

  /** Ends a tuning session and waits until its limits are restored and its job has ended. */
  async cancelTune(input: MethodInput<'cancelTune'>): Promise<MethodOutput<'cancelTune'>> {
    return { cancelled: await this.ctx.running.cancelTune(input.sweep_id) };
  }

  async getTuneStatus(input: MethodInput<'getTuneStatus'>): Promise<MethodOutput<'getTuneStatus'>> {
    if (!getSweep(this.ctx.db, input.sweep_id)) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return storedTuneStatus(this.ctx.db, input.sweep_id);
  }
}
