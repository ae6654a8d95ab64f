import type { Db } from '../store/db';
import { upsertDevice } from '../store/devices';
import { insertMetrics, sweepSamplesInRange } from '../store/samples';
import { SampleRecorder } from './sample-recorder';
import { collectEnvironment } from '../environment/environment';
import { reserveSpace, type SpaceReserve } from '../store/reserve';
import { diskFullOf } from '../store/disk-full';
import { appendRuns, cancelOpenRuns, createSweep, recordRunAdaptive, recordRunDevice, recordSweepEnd, setSweepSoftware, updateRun, getRun, type RunUpdate } from '../store/sweeps';
import { AdaptiveDriver } from './adaptive-driver';
import { labelFirstPass } from '../../../core/sweep/adaptive-summary';
import type { GpuBackend } from '../gpu/backend';
import { Sampler } from '../gpu/sampler';
import { createSampler, type DeviceSampler } from '../gpu/buffered-sampler';
import { PtyRun } from '../runner/pty-run';
import { RunProgress, windowFromAdapter, type MeasuredWindow, type ProgressSignal } from '../runner/progress';
import { readThroughput } from '../../../core/adapters';
import { createWriteStream, readFileSync } from 'node:fs';
import type { CapOwnership } from './cap-guard';
import { killTagged, newRunTag, RUN_TAG_ENV } from '../runner/tagged-processes';
import { scheduleRuns } from '../../../core/schedule';
import { SweepProgressMeter } from '../../../core/progress';
import { windowEnergy } from '../../../core/analysis/energy';
import { analyzeSweep } from '../../../core/analysis/analyze';
import { loadSweepInput } from '../analysis/load';
import { Sample, type DeviceInfo } from '../../../shared/device';
import type { Plan, PlannedRun, WorkloadRef } from '../../../shared/plan';
import type { EventPayload, LabEventListener } from '../../../shared/api';
import type { CapRestore, RunStatus, SweepStatus } from '../../../shared/records';
import type { SoftwareRecord } from '../../../shared/export';
import { counterReading } from '../gpu/counter-reading';

export interface WorkloadCommand {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Runs after the process tree is gone (stops and removes a container by name). */
  cleanup?: () => Promise<void>;
  /**
   * Set when throughput is read by an adapter from the finished output (or a file the tool writes) instead of the
   * line protocol: the run is then time-boxed to warm-up + window seconds, and its output is kept whole in logFile.
   */
  reader?: { adapter: string; pattern: string | null; file: string | null; logFile: string };
}

export interface SweepDeps {
  db: Db;
  host: string;
  backend: GpuBackend;
  /** Backend seconds per wall second (the simulated speed-up; 1 for real devices). */
  timeScale: number;
  devices: DeviceInfo[];
  /** CPU packages (RAPL) recorded beside the GPUs, so node energy can be measured rather than assumed. */
  cpu: { backend: GpuBackend; devices: DeviceInfo[] } | null;
  workloadCommand: (ref: WorkloadRef, devices: number[], run: { sweepId: number; runId: number }) => Promise<WorkloadCommand>;
  /** The workloads' software for the run record (Python, PyTorch, images, CUDA/ROCm), asked once at the start. */
  software?: (plan: Plan) => Promise<SoftwareRecord>;
  /** The leases and journal of the devices' limits; null for observe-only sweeps, which never set one. */
  caps: CapOwnership | null;
  emit: LabEventListener;
}

interface RunOutcome {
  status: RunStatus;
  update: RunUpdate;
}

const FLUSH_MS = 250;
/** Hang and time-box checks: each wake-up costs CPU (bench/results/h200-sampler-cost.md), so once a second. */
const WATCHDOG_MS = 1000;

/** A database error (full disk, file size limit, I/O error): the sweep cannot record, so it stops. */
function isStoreError(e: unknown): boolean {
  const err = e as { name?: string; code?: unknown } | null;
  return err?.name === 'SqliteError' || (typeof err?.code === 'string' && err.code.startsWith('SQLITE_'));
}

/** Runs one sweep: journal limits, then per run set cap, run the workload in a pty, measure, cool down; restore. */
export class SweepOrchestrator {
  readonly sweepId: number;
  readonly runIds: number[];
  readonly done: Promise<SweepStatus>;
  private readonly planned: PlannedRun[];
  /** Runs of the plan as written (adaptive refinement appends after them). */
  private readonly coarseRuns: number;
  private cancelled = false;
  /** Cancelled or failed: no further run starts, and limits are being restored. */
  private halted = false;
  /** Why the sweep stopped on its own (a store error); null otherwise. */
  private failure: string | null = null;
  /** Things the user should know before reading the results (another sweep capping an observed device, …). */
  readonly notices: string[] = [];
  /** The sweep's final error, also when it could not be written to the database. */
  error: string | null = null;
  private reserve: SpaceReserve | null = null;
  /** Tag in every workload's environment: what the run leaves behind is found by it (tagged-processes). */
  private readonly tag: string;
  private current: PtyRun | null = null;
  private sampler: DeviceSampler | null = null;
  /** The run being set up or measured (also while its cap is being set). */
  activeRunId: number | null = null;
  private readonly recorder: SampleRecorder;
  private deviceIds = new Map<string, number>();
  private wake: (() => void) | null = null;
  private runsDone = 0;
  private readonly meter = new SweepProgressMeter();
  /** Plan `adaptive`: window, cool-down and sequential repetitions decided as the sweep goes; null when fixed. */
  private readonly adaptive: AdaptiveDriver | null;
  /** Sequential repetitions have begun: the refinement is over. */
  private repeating = false;

  constructor(
    private readonly deps: SweepDeps,
    private readonly plan: Plan,
  ) {
    this.planned = labelFirstPass(scheduleRuns(plan), plan);
    this.adaptive = AdaptiveDriver.of(plan, () => deps.backend.now());
    this.coarseRuns = this.planned.length;
    for (const d of [...deps.devices, ...(deps.cpu?.devices ?? [])]) this.deviceIds.set(d.id, upsertDevice(deps.db, deps.host, d));
    const created = createSweep(
      deps.db,
      { name: plan.name, plan, host: deps.host, backend: deps.backend.name, simulated: deps.backend.simulated, environment: collectEnvironment() },
      this.planned,
    );
    this.sweepId = created.sweepId;
    deps.caps?.setSweep(this.sweepId);
    this.tag = deps.caps?.tag ?? newRunTag();
    this.recorder = new SampleRecorder(deps.db, this.sweepId, this.deviceIds, (run_id, samples) =>
      deps.emit('samples', { sweep_id: this.sweepId, run_id, samples }),
    );
    this.runIds = created.runIds;
    this.done = this.execute();
  }

  /** Asks the workloads' software for its versions (each probe time-boxed) and keeps it with the environment. */
  private async recordSoftware(): Promise<void> {
    if (!this.deps.software) return;
    let software: SoftwareRecord;
    try {
      software = await this.deps.software(this.plan);
    } catch (e) {
      software = { pythons: [], images: [], cuda_driver: null, rocm: null, note: `the software could not be asked: ${(e as Error).message}` };
    }
    try {
      setSweepSoftware(this.deps.db, this.sweepId, software);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Stops the current workload and every later run; limits are restored before `done` resolves. */
  cancel(): void {
    this.cancelled = true;
    this.halt();
  }

  /** Stops the sweep; the limits are restored at once, before any other bookkeeping (a signal may follow). */
  private halt(): void {
    this.halted = true;
    void this.deps.caps?.restore();
    this.wake?.();
    void this.current?.kill();
  }

  /**
   * A store error: the sweep cannot keep its record, so it stops and fails with the error. No more samples are
   * written: the room the WAL holds is for the end record (store/reserve.ts).
   */
  private fail(e: unknown): void {
    this.failure ??= `could not write to the database: ${diskFullOf(e, this.deps.db.name)?.message ?? (e as Error).message}`;
    this.recorder.discard();
    this.halt();
  }

  private flushSamples(): void {
    try {
      this.recorder.flush();
      this.reserve?.check();
    } catch (e) {
      this.fail(e);
    }
  }

  /** Input for the running workload's terminal; false when no workload is running. */
  write(data: string): boolean {
    if (!this.current) return false;
    this.current.write(data);
    return true;
  }

  private get indexes(): number[] {
    return this.deps.devices.map((d) => d.index);
  }

  private progress(runIndex: number | null, phase: EventPayload<'sweep.progress'>['phase']): void {
    const r = runIndex === null ? null : this.planned[runIndex]!;
    this.deps.emit('sweep.progress', {
      sweep_id: this.sweepId,
      run_id: runIndex === null ? null : this.runIds[runIndex]!,
      runs_done: this.runsDone,
      run_count: this.planned.length,
      workload: r?.workload ?? null,
      cap_w: r?.cap_w ?? null,
      repetition: r?.repetition ?? null,
      reason: r?.reason ?? null,
      phase,
      fraction: this.meter.at(runIndex ?? this.runsDone, phase, this.planned.length),
    });
  }

  /** Waits in backend time; wakes early on cancel. */
  private sleep(backendSeconds: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, (backendSeconds * 1000) / this.deps.timeScale);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  private async execute(): Promise<SweepStatus> {
    const { db, backend, emit } = this.deps;
    emit('sweep.started', { sweep_id: this.sweepId, run_count: this.planned.length, simulated: backend.simulated });
    await this.recordSoftware();
    let buffered = false;
    const sampler = createSampler({
      mode: this.plan.sample_mode,
      backend,
      indexes: this.indexes,
      intervalMs: this.plan.sample_interval_ms,
      timeScale: this.deps.timeScale,
      // Buffered readings arrive once a second: written at once, in one transaction, with no flush timer of its own.
      onSamples: (s) => {
        this.recorder.collect(s);
        this.adaptive?.onSamples(s);
        if (buffered) this.flushSamples();
      },
    });
    buffered = sampler.buffered;
    this.sampler = sampler;
    const cpu = this.deps.cpu;
    const cpuSampler = cpu
      ? new Sampler({ backend: cpu.backend, indexes: cpu.devices.map((d) => d.index), intervalMs: this.plan.sample_interval_ms, onSamples: (s) => this.recorder.collect(s) })
      : null;
    const flusher = buffered ? null : setInterval(() => this.flushSamples(), FLUSH_MS);
    let status: SweepStatus = 'done';
    let error: string | null = null;
    let restored: CapRestore[] = [];
    const caps = this.deps.caps;
    this.reserve = reserveSpace(db, this.planned.length);
    try {
      await caps?.journal(this.sweepId);
      sampler.start();
      cpuSampler?.start();
      await this.adaptive?.takeBaseline((s) => this.sleep(s));
      for (let i = 0; !this.halted; i++) {
        if (i >= this.planned.length && !this.refine() && !this.repeat()) break;
        const outcome = await this.runOne(i);
        this.runsDone++;
        const run = getRun(db, this.runIds[i]!)!;
        emit('run.finished', { sweep_id: this.sweepId, run, status: outcome.status });
        if (outcome.status === 'failed' && this.plan.on_failure === 'stop') {
          status = 'failed';
          error = `run ${i + 1} (${run.workload} at ${run.cap_w} W) failed: ${run.error ?? 'unknown'}; the plan says on_failure: stop`;
          break;
        }
        if (!this.halted && this.plan.cooldown_s > 0) {
          this.progress(i, 'cooldown');
          const waited = await this.adaptive?.coolDown((s) => this.sleep(s), () => this.halted);
          if (waited) recordRunAdaptive(db, this.runIds[i]!, { cooldown: waited });
          else await this.sleep(this.plan.cooldown_s);
        }
      }
      if (this.cancelled) status = 'cancelled';
    } catch (e) {
      if (isStoreError(e)) this.fail(e);
      status = 'failed';
      error = (e as Error).message;
    } finally {
      this.halted = true;
      sampler.stop();
      cpuSampler?.stop();
      if (flusher) clearInterval(flusher);
      this.sampler = null;
      // Limits first: whatever the bookkeeping below meets (a full disk, a signal), the devices are already back.
      if (caps) {
        restored = await caps.restore();
        await caps.release();
      }
      // The samples still buffered, unless a write already failed (then the space left is for the record below).
      this.recorder.runId = null;
      this.flushSamples();
      if (this.failure) {
        status = 'failed';
        error = this.failure;
      }
      const failed = restored.filter((r) => !r.ok);
      error = [...new Set([error, ...failed.map((f) => `could not restore ${f.device_name} to ${f.before_w} W: ${f.error}`)].filter(Boolean))].join('; ') || null;
      this.error = error;
      // Nothing else writes now: the room the WAL holds goes to the end record, the sweep's row and its journal close
      // first (small, so that it fits), then the runs left open (one row each).
      const unrecorded: string[] = [];
      try {
        this.reserve?.release();
        const back = restored.flatMap((r) => (r.ok && r.restored_w !== null ? [{ device_key: r.device_id, restored_w: r.restored_w }] : []));
        recordSweepEnd(db, this.sweepId, status, error, back);
      } catch (e) {
        unrecorded.push(diskFullOf(e, db.name)?.message ?? (e as Error).message);
      }
      try {
        cancelOpenRuns(db, this.sweepId);
      } catch (e) {
        unrecorded.push(diskFullOf(e, db.name)?.message ?? (e as Error).message);
      }
      if (unrecorded.length) this.error = `${error ? `${error}; ` : ''}could not record the sweep's end: ${[...new Set(unrecorded)].join('; ')}`;
      emit('sweep.finished', { sweep_id: this.sweepId, status, error: this.error, restored });
    }
    return status;
  }

  /**
   * `caps: {adaptive: …}`: once every planned run is done, analyse the sweep so far and add runs at the caps that
   * narrow the best cap (golden-section around the peak), until it is known to width_w or max_runs is spent.
   * Returns whether runs were added.
   */
  private refine(): boolean {
    const caps = this.plan.caps;
    if (Array.isArray(caps) || !('adaptive' in caps) || this.repeating || this.adaptive?.overBudget()) return false;
    const { input, adaptive } = loadSweepInput(this.deps.db, this.sweepId);
    if (!adaptive) return false;
    const result = analyzeSweep(input, { overhead_w: this.plan.overhead_w, adaptive });
    const added: PlannedRun[] = [];
    for (const group of result.groups) {
      const proposal = group.refine;
      if (!proposal || proposal.done) continue;
      for (const cap_w of proposal.next_caps) {
        const why = `refinement: ${proposal.note}`;
        for (let rep = 1; rep <= this.plan.repetitions; rep++) added.push({ workload: group.workload, cap_w, repetition: rep, order: this.planned.length + added.length, reason: why });
      }
    }
    // The run budget holds for the sweep as a whole: every run added after the coarse grid counts, also one at a
    // grid cap proposed again because its first run was excluded.
    const budget = caps.adaptive.max_runs - (this.planned.length - this.coarseRuns);
    added.splice(Math.max(0, budget));
    if (added.length === 0) return false;
    this.runIds.push(...appendRuns(this.deps.db, this.sweepId, added));
    this.planned.push(...added);
    return true;
  }

  /** Plan `adaptive.repetitions`: after the first pass and the refinement, repetitions where the answer is undecided. */
  private repeat(): boolean {
    const added = this.adaptive?.nextRepetitions(this.deps.db, this.sweepId, this.planned.length) ?? [];
    if (added.length === 0) return false;
    this.repeating = true;
    this.runIds.push(...appendRuns(this.deps.db, this.sweepId, added));
    this.planned.push(...added);
    return true;
  }

  private async runOne(i: number): Promise<RunOutcome> {
    const { db } = this.deps;
    const planned = this.planned[i]!;
    const runId = this.runIds[i]!;
    this.activeRunId = runId;
    let outcome: RunOutcome;
    try {
      this.progress(i, 'setting-cap');
      if (this.deps.caps) for (const idx of this.indexes) await this.deps.caps.set(idx, planned.cap_w);
      outcome = await this.measure(i);
    } catch (e) {
      if (isStoreError(e)) throw e;
      outcome = { status: 'failed', update: { error: (e as Error).message } };
    }
    if (outcome.status === 'failed' && this.halted) outcome = { status: 'cancelled', update: { ...outcome.update, error: 'cancelled' } };
    updateRun(db, runId, { ...outcome.update, status: outcome.status });
    return outcome;
  }

  private async measure(i: number): Promise<RunOutcome> {
    const { db, backend } = this.deps;
    const planned = this.planned[i]!;
    const runId = this.runIds[i]!;
    const ref = this.plan.workloads.find((w) => w.id === planned.workload)!;
    const enforced = await backend.getPowerLimit(this.indexes[0]!);
    const startT = backend.now();
    this.sampler?.drain(); // readings taken before the run belong to no run
    this.recorder.runId = runId;
    updateRun(db, runId, { status: 'running', started_at: startT, enforced_limit_w: enforced });
    const progress: RunProgress = new RunProgress({
      warmup: this.plan.warmup,
      window: this.plan.window,
      gpus: this.indexes.length,
      hangTimeoutS: this.plan.hang_timeout_s,
      windowDone: this.adaptive?.windowHook((): number | null => progress.warmupEnd),
    });
    const cmd = await this.deps.workloadCommand(ref, this.indexes, { sweepId: this.sweepId, runId });
    const reader = cmd.reader ?? null;
    const { warmup, window: span } = this.plan;
    if (reader && !('seconds' in warmup && 'seconds' in span)) {
      return { status: 'failed', update: { error: `workload ${ref.id} is read by the "${reader.adapter}" adapter after it ends, so the plan's warmup and window must be given in seconds` } };
    }
    const timeBox = reader && 'seconds' in warmup && 'seconds' in span ? warmup.seconds + span.seconds : null;
    const log = reader ? createWriteStream(reader.logFile) : null;
    let lastOutput = Date.now() / 1000;
    let timeBoxed = false;
    // Energy-counter readings at the window edges, stored as samples of their own: exact window boundaries for
    // every later analysis, while the sampler need not read the (slow, ~4 ms on NVML) counter every tick.
    // Each reading is stamped with the time its value belongs to (counterReading: the backend's own, else the
    // middle of the call; an NVML counter read takes ~4 ms), not after it.
    const readCounters = async () => {
      for (const d of this.deps.devices) {
        const { t, energy_mj } = await counterReading(backend, d.index);
        if (energy_mj === null) continue;
        const sample = Sample.parse({ device_id: d.id, t, power_w: null, power_kind: 'counter', energy_mj });
        this.recorder.collect([sample]);
        this.adaptive?.onSamples([sample]);
      }
    };
    let boundary: Promise<void> = Promise.resolve();
    // Plan adaptive.window: the counter also read through the window on the sampler's period, for the window's
    // power (each CI batch's energy over its whole steps); power readings alone strobe ~0.1 s steps (7-8 % on the
    // H200's LLM, bench/results/h200-adaptive-2026-12-04.md). A read still in flight skips the tick.
    let counterTimer: ReturnType<typeof setInterval> | null = null;
    let counterBusy = false;
    const stopCounterTimer = () => {
      if (counterTimer) clearInterval(counterTimer);
      counterTimer = null;
    };
    const startCounterTimer = () => {
      if (!this.adaptive?.judgesWindow || counterTimer) return;
      counterTimer = setInterval(() => {
        if (counterBusy) return;
        counterBusy = true;
        boundary = boundary.then(readCounters).finally(() => {
          counterBusy = false;
        });
      }, this.plan.sample_interval_ms / this.deps.timeScale);
    };
    let timedOut: string | null = null;
    const metrics: { t: number; name: string; value: number }[] = [];
    const onSignal = (sig: ProgressSignal) => {
      if (sig.type === 'step') {
        const rate = sig.rate / progress.gpus;
        metrics.push({ t: sig.step.t, name: 'units', value: sig.step.units }, { t: sig.step.t, name: 'rate', value: rate });
        this.deps.emit('throughput', { sweep_id: this.sweepId, run_id: runId, t: sig.step.t, rate });
      } else if (sig.type === 'metric') metrics.push({ t: sig.t, name: sig.name, value: sig.value });
      else if (sig.type === 'warmup-end') {
        boundary = boundary.then(readCounters);
        startCounterTimer();
        this.progress(i, 'measure');
      } else if (sig.type === 'window-complete') {
        stopCounterTimer();
        boundary = boundary.then(readCounters);
        void run.kill();
      } else if (sig.type === 'failure') void run.kill();
    };
    const run = new PtyRun({
      argv: cmd.argv,
      env: { ...cmd.env, [RUN_TAG_ENV]: this.tag },
      onData: (data) => {
        lastOutput = Date.now() / 1000;
        log?.write(data.replace(/\r\n/g, '\n'));
        this.deps.emit('pty.data', { sweep_id: this.sweepId, run_id: runId, data });
      },
      onLine: (line) => progress.pushLine(line).forEach(onSignal),
    });
    this.current = run;
    this.progress(i, 'warmup');
    // Hang and time-out are judged on the wall clock, also for simulated devices: start-up latency is real time.
    const startedWall = Date.now() / 1000;
    const check = () => {
      const now = Date.now() / 1000;
      if (timeBox !== null) {
        // Adapter workloads print no steps: a hang is silence, and the run ends at warm-up + window.
        if (now - lastOutput > this.plan.hang_timeout_s && !timedOut) timedOut = `hung: no output for ${this.plan.hang_timeout_s} s (hang_timeout_s)`;
        else if (now - startedWall >= timeBox && !timeBoxed) timeBoxed = true;
        if (timedOut || timeBoxed) void run.kill();
      } else if (progress.checkHang()) void run.kill();
      else if (now - startedWall > this.plan.run_timeout_s && !timedOut) {
        timedOut = `timed out: the run took longer than run_timeout_s (${this.plan.run_timeout_s} s)`;
        void run.kill();
      }
    };
    // On the buffered sampler's once-a-second wake where that is often enough: a wake-up of its own costs CPU.
    const checkMs = Math.min(WATCHDOG_MS, (this.plan.hang_timeout_s * 1000) / 4);
    const unsubscribe = checkMs >= WATCHDOG_MS ? (this.sampler?.onWake(check) ?? null) : null;
    const watchdog = unsubscribe ? null : setInterval(check, checkMs);
    const exit = await run.exited;
    stopCounterTimer();
    if (watchdog) clearInterval(watchdog);
    unsubscribe?.();
    // Whatever the run started and left behind (daemons that left the process tree) ends with the run.
    await killTagged(this.tag);
    await cmd.cleanup?.();
    this.current = null;
    await boundary;
    this.sampler?.drain();
    this.recorder.runId = null;
    this.recorder.flush();
    insertMetrics(db, runId, metrics);
    if (reader) {
      await new Promise((resolve) => log!.end(resolve));
      return this.adapterOutcome(runId, reader, { startT, warmupS: 'seconds' in warmup ? warmup.seconds : 0, exit, timeBoxed, timedOut, tail: run.outputTail(15) });
    }
    const outcome = progress.finish({ exitCode: exit.exitCode, signal: exit.signal, cancelled: this.cancelled });
    const base: RunUpdate = { ended_at: backend.now(), exit_code: exit.exitCode, units: progress.startEvent?.units ?? null, output_tail: run.outputTail(), warmup_end: progress.warmupEnd, measure_start: progress.warmupEnd };
    if (outcome.status === 'done' && !timedOut) {
      const decided = this.adaptive?.windowRecord(outcome.window.seconds);
      if (decided) recordRunAdaptive(db, runId, { window: decided });
      return { status: 'done', update: { ...base, ...this.summarise(runId, outcome.window) } };
    }
    if (outcome.status === 'cancelled' || this.cancelled) return { status: 'cancelled', update: { ...base, error: 'cancelled' } };
    const message = timedOut ?? (outcome.status === 'failed' ? outcome.failure.message : 'failed');
    const lines = outcome.status === 'failed' ? outcome.failure.lastLines : [];
    return { status: 'failed', update: { ...base, error: `${message}\n--- last output ---\n${lines.slice(-15).join('\n')}` } };
  }

  /**
   * The outcome of an adapter-read run: the tool's own figures from its output (or file). Where the tool gives an
   * absolute window, energy is laid over exactly that; otherwise over CapLab's window from warm-up end to the end.
   */
  private adapterOutcome(
    runId: number,
    reader: NonNullable<WorkloadCommand['reader']>,
    r: { startT: number; warmupS: number; exit: { exitCode: number; signal: number | null }; timeBoxed: boolean; timedOut: string | null; tail: string },
  ): RunOutcome {
    const endT = this.deps.backend.now();
    const base: RunUpdate = { ended_at: endT, exit_code: r.exit.exitCode, output_tail: r.tail };
    const failed = (message: string): RunOutcome => ({ status: 'failed', update: { ...base, error: `${message}\n--- last output ---\n${r.tail}` } });
    if (this.cancelled) return { status: 'cancelled', update: { ...base, error: 'cancelled' } };
    if (r.timedOut) return failed(r.timedOut);
    if (!r.timeBoxed && r.exit.exitCode !== 0) return failed(`the workload exited with code ${r.exit.exitCode}`);
    const source = reader.file ?? reader.logFile;
    let result;
    try {
      result = readThroughput(readFileSync(source, 'utf8'), { adapter: reader.adapter, pattern: reader.pattern ?? undefined, file: source });
    } catch (e) {
      return failed(`could not read the throughput: ${(e as Error).message}`);
    }
    const gpus = this.indexes.length;
    const start = r.startT + r.warmupS;
    const window: MeasuredWindow = windowFromAdapter(result, gpus) ?? {
      start,
      end: endT,
      seconds: endT - start,
      units: result.rate * (endT - start),
      steps: 0,
      rate: result.rate,
      rate_per_gpu: result.rate / gpus,
      gpus,
      unit_name: result.units,
    };
    if (!(window.seconds > 0)) return failed(`the measurement window is empty (the run ended ${(endT - r.startT).toFixed(1)} s after it started)`);
    return { status: 'done', update: { ...base, units: result.units, warmup_end: window.start, measure_start: window.start, ...this.summarise(runId, window) } };
  }

  /** Stores the run's measured facts: window, work units, GPU energy per device and in sum, CPU energy where measured. */
  private summarise(runId: number, window: MeasuredWindow): RunUpdate {
    const { start: from, end: to } = window;
    const energyOf = (d: DeviceInfo) => {
      const deviceId = this.deviceIds.get(d.id)!;
      const e = windowEnergy(sweepSamplesInRange(this.deps.db, this.sweepId, deviceId, from - 2, to + 2), { start: from, end: to }, { device_id: d.id });
      recordRunDevice(this.deps.db, runId, deviceId, { energy_j: e.energy_j, mean_power_w: e.mean_w, energy_sensor: e.sensor, enforced_limit_w: null });
      return e;
    };
    const gpu = this.deps.devices.map(energyOf);
    const cpu = (this.deps.cpu?.devices ?? []).map(energyOf);
    const sum = (es: typeof gpu) => (es.length > 0 && es.every((e) => e.energy_j !== null) ? es.reduce((s, e) => s + e.energy_j!, 0) : null);
    return {
      measure_end: to,
      units_in_window: window.units,
      gpus: this.deps.devices.length,
      energy_j: sum(gpu),
      cpu_energy_j: sum(cpu),
      energy_sensor: [...new Set(gpu.map((e) => e.sensor ?? `none (${e.reason ?? 'no readings'})`))].join('+'),
    };
  }
}
