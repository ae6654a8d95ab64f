// The sweeps slice (src/shared/api/sweeps.ts): starting a plan's sweep (beginSweep, also the CLI's door), cancelling
// it, typing into its terminal, and the stored sweeps, runs and samples.
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import { decimateMinMax } from '../../../core/decimate';
import type { DeviceInfo } from '../../../shared/device';
import { LabError } from '../../../shared/errors';
import type { ReadingField } from '../../../shared/sample';
import type { BeginOptions, EngineContext } from '../engine-context';
import type { LabBackend } from '../gpu/backend';
import { openCpuPower } from '../gpu/lab-backend';
import { NotFoundError, PlanError } from '../input/errors';
import { issueLines } from '../input/issues';
import { describeOwner, probeLease } from '../lease/device-lease';
import { deviceLeaseKey } from '../lease/host-journal';
import { listRunsPage, listSamplesPage, withNodes } from './paging';
import { devicesOfRun } from '../store/devices';
import { decimateField } from '../store/sample-blocks';
import { metricsOfRun, runStream } from '../store/samples';
import { deleteSweep, getRun, getSweep, listSweeps, runsOfSweep, setSweepNotes } from '../store/sweeps';
import type { CapOwnership } from './cap-guard';
import { takeCaps } from './engine-caps';
import { SweepOrchestrator } from './orchestrator';
import { CheckedPlan, readPlan } from './plan-verdict';
import { workloadCommandFor, workloadSoftware } from './workload-command';

export class SweepsService implements SliceApi<'sweeps'> {
  constructor(private readonly ctx: EngineContext) {}

  /** Validates everything first (nothing is written for a bad plan), then starts the sweep in the background. */
  async startSweep(input: MethodInput<'startSweep'>): Promise<MethodOutput<'startSweep'>> {
    return { sweep_id: (await this.beginSweep(input.plan)).sweepId };
  }

  /**
   * Like startSweep, but hands back the running orchestrator (the CLI waits on it). `planValue` is a value to read, or a
   * CheckedPlan the caller read already (`caplab sweep`, before it opened the database): the sweep runs on the
   * backend it was checked on, and it is closed if the sweep does not start.
   */
  async beginSweep(planValue: unknown, opts: BeginOptions = {}): Promise<SweepOrchestrator> {
    const { ctx } = this;
    const checked = planValue instanceof CheckedPlan ? planValue : await readPlan(planValue, { backend: ctx.backend, env: ctx.env });
    let caps: CapOwnership | null = null;
    try {
      ctx.writable('start a sweep');
      if (checked.issues.length) throw PlanError.of(opts.where ?? 'plan', checked.issues);
      ctx.running.refuseWhileBusy();
      const warnings = checked.verdict(ctx).warnings;
      const { plan, lab, devices } = checked.forSweep(ctx.running.handlePty);
      const notices = plan.observe_only ? await this.observeNotices(lab, devices) : [];
      if (!plan.observe_only) caps = await takeCaps(ctx, lab, devices, opts);
      const cpu = await openCpuPower(lab, ctx.env);
      const sweep = new SweepOrchestrator(
        {
          db: ctx.db,
          host: ctx.host,
          backend: lab.backend,
          caps,
          timeScale: lab.timeScale,
          devices,
          cpu,
          workloadCommand: (ref, idx, run) => workloadCommandFor(lab, ref, idx, run, ctx.env),
          software: (p) => workloadSoftware(lab, p, ctx.env),
          emit: (...e) => ctx.emit(...e),
        },
        plan,
      );
      sweep.notices.push(...notices, ...(caps?.restoredStale ?? []).map((r) => `a limit left by an earlier, killed sweep was restored first: ${r.device_name} to ${r.before_w} W (was ${r.was_w} W)`));
      sweep.notices.push(...warnings.map((w) => `warning: ${issueLines([w])[0]}`));
      ctx.running.sweeps.set(sweep.sweepId, sweep);
      void sweep.done.finally(() => {
        ctx.running.sweeps.delete(sweep.sweepId);
        void lab.backend.close();
        void cpu?.backend.close();
      });
      return sweep;
    } catch (e) {
      await caps?.release();
      await checked.close();
      throw e;
    }
  }

  /** Observe-only sweeps take no lease, but say when another sweep is capping a device they watch. */
  private async observeNotices(lab: LabBackend, devices: DeviceInfo[]): Promise<string[]> {
    const out: string[] = [];
    for (const d of devices) {
      const held = await probeLease(deviceLeaseKey(d, lab.reopenOpts), this.ctx.env);
      if (held) out.push(`${d.name} (#${d.index}) is being capped by ${describeOwner(held.owner)}: this observe-only sweep records that sweep's caps`);
    }
    return out;
  }

  async cancelSweep(input: MethodInput<'cancelSweep'>): Promise<MethodOutput<'cancelSweep'>> {
    const sweep = this.ctx.running.sweeps.get(input.sweep_id);
    // A tuning session is a sweep to the console: its Cancel ends the session.
    if (!sweep) return { cancelled: await this.ctx.running.cancelTune(input.sweep_id) };
    sweep.cancel();
    await sweep.done;
    return { cancelled: true };
  }

  async writePty(input: MethodInput<'writePty'>): Promise<MethodOutput<'writePty'>> {
    const { running } = this.ctx;
    if (running.capPty && running.sweeps.has(input.sweep_id)) {
      running.capPty.write(input.data);
      return { written: true };
    }
    const tune = running.tunes.get(input.sweep_id);
    if (tune) return { written: tune.write(input.data) };
    return { written: running.sweeps.get(input.sweep_id)?.write(input.data) ?? false };
  }

  async listSweeps(input: MethodInput<'listSweeps'>): Promise<MethodOutput<'listSweeps'>> {
    return listSweeps(this.ctx.db, input.search);
  }

  async getSweep(input: MethodInput<'getSweep'>): Promise<MethodOutput<'getSweep'>> {
    const { db } = this.ctx;
    const sweep = getSweep(db, input.sweep_id);
    if (!sweep) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return { sweep, runs: withNodes(db, input.sweep_id, runsOfSweep(db, input.sweep_id)) };
  }

  async listRuns(input: MethodInput<'listRuns'>): Promise<MethodOutput<'listRuns'>> {
    return listRunsPage(this.ctx.db, input);
  }

  async listSamples(input: MethodInput<'listSamples'>): Promise<MethodOutput<'listSamples'>> {
    return listSamplesPage(this.ctx.db, input);
  }

  async setSweepNotes(input: MethodInput<'setSweepNotes'>): Promise<MethodOutput<'setSweepNotes'>> {
    this.ctx.writable('set a sweep’s tags and notes');
    const tags = input.tags === undefined ? undefined : [...new Set(input.tags)];
    if (!setSweepNotes(this.ctx.db, input.sweep_id, { tags, notes: input.notes })) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return getSweep(this.ctx.db, input.sweep_id)!;
  }

  async deleteSweep(input: MethodInput<'deleteSweep'>): Promise<MethodOutput<'deleteSweep'>> {
    this.ctx.writable('delete a sweep');
    if (this.ctx.running.sweeps.has(input.sweep_id)) throw new LabError('conflict', `sweep ${input.sweep_id} is running; cancel it first`);
    if (!getSweep(this.ctx.db, input.sweep_id)) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return { deleted: deleteSweep(this.ctx.db, input.sweep_id) };
  }

  async getRunTraces(input: MethodInput<'getRunTraces'>): Promise<MethodOutput<'getRunTraces'>> {
    const { db } = this.ctx;
    const run = getRun(db, input.run_id);
    if (!run) throw new NotFoundError(`no run ${input.run_id}`);
    const max = input.max_points ?? 2000;
    const devices = devicesOfRun(db, input.run_id);
    const traces = devices.map((d) => {
      const s = runStream(db, input.run_id, d.id);
      const series = (field: ReadingField) => (s ? decimateField(db, s.stream, field, s.from, s.to, max) : { t: [], v: [] });
      return { device_id: d.device_key, power_w: series('power_w'), sm_clock_mhz: series('sm_clock_mhz'), temp_c: series('temp_c'), limit_w: series('limit_w') };
    });
    const rate = metricsOfRun(db, input.run_id, 'rate');
    return { run_id: input.run_id, devices: traces, throughput: decimateMinMax(rate.map((r) => r.t), rate.map((r) => r.value), max) };
  }
}
