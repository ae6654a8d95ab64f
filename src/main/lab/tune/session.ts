// A tuning session (`caplab tune -- CMD`): the user's own job runs in a pty while its caps are profiled and the best
// is held. The limits are journalled before the first change and restored on every way out (the lease and journal
// of sweeps, cap-guard.ts); the session is recorded as a sweep whose runs are the profile's visits, so History,
// Results and `caplab analyze` read it like any sweep.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Db } from '../store/db';
import { upsertDevice } from '../store/devices';
import { sweepSamplesInRange } from '../store/samples';
import { appendRuns, createSweep, finishSweep, getRun, recordRunDevice, setTuneReport, setTuneStatus, updateRun } from '../store/sweeps';
import { tuneOutcome, tuneReportText, type CapProfile, type TuneReport } from './report-text';
import { reserveSpace } from '../store/reserve';
import { collectEnvironment } from '../environment/environment';
import { SampleRecorder } from '../sweep/sample-recorder';
import type { CapOwnership } from '../sweep/cap-guard';
import type { GpuBackend } from '../gpu/backend';
import { createSampler, type DeviceSampler } from '../gpu/buffered-sampler';
import { PtyRun, type PtyExit } from '../runner/pty-run';
import { killTagged, RUN_TAG_ENV } from '../runner/tagged-processes';
import { windowEnergy } from '../../../core/analysis/energy';
import { runFigures } from '../../../core/analysis/figures';
import { adapterNames } from '../../../core/adapters';
import { ProgressFollower } from '../../../core/tune/follow';
import { measureVisit, DEFAULT_VISIT_RULES, type VisitRules } from '../../../core/tune/visit';
import { CapSearch, type Hold, type TuneVisit } from '../../../core/tune/search';
import { PhaseWatch, DEFAULT_PHASE_RULES, type PhaseRules } from '../../../core/tune/phase';
import { estimateSavings } from '../../../core/tune/savings';
import { describe } from '../../../core/analysis/stats';
import { Sample, type DeviceInfo } from '../../../shared/device';
import type { Plan } from '../../../shared/plan';
import type { Selector } from '../../../shared/analysis';
import type { CapRestore } from '../../../shared/records';
import { counterReading } from '../gpu/counter-reading';
import { TUNE_OPTION_DEFAULTS, type TuneStatus } from '../../../shared/tune';
import type { EventArgs } from '../../../shared/api';

export interface TuneOptions {
  argv: string[];
  selector: Selector;
  /** The coarse caps. */
  caps: number[];
  adapter: string;
  file: string | null;
  pattern: string | null;
  units: string | null;
  margin: number;
  alpha: number;
  /** Profiling may take at most this share of the expected job time. */
  max_profile_share: number;
  /** Expected job length, backend seconds (the profiling budget is a share of it). */
  expected_s: number;
  seed: number;
  overhead_w: number;
  visit: VisitRules;
  phase: PhaseRules;
  /** A job with no rate this long after it started is refused (nothing was set yet). Wall-clock seconds. */
  rate_timeout_s: number;
  /** No output for this long (wall seconds): the job is hung; it is ended and the limits restored. */
  hang_timeout_s: number;
  /** Visit length of jobs read by an adapter other than the protocol (no step events to test), backend seconds. */
  text_visit_s: number;
  sample_interval_ms: number;
  /** Hold this cap from the steady state on, without profiling (a cap found before; or the default limit, as a baseline). */
  hold_w: number | null;
  plan: Plan;
}

export const TUNE_DEFAULTS = {
  margin: TUNE_OPTION_DEFAULTS.margin,
  alpha: 0.05,
  max_profile_share: TUNE_OPTION_DEFAULTS.max_profile_share,
  expected_s: TUNE_OPTION_DEFAULTS.job_seconds,
  rate_timeout_s: TUNE_OPTION_DEFAULTS.rate_timeout_s,
  hang_timeout_s: TUNE_OPTION_DEFAULTS.hang_timeout_s,
  text_visit_s: 60,
  visit: DEFAULT_VISIT_RULES,
  phase: DEFAULT_PHASE_RULES,
} as const;

export interface TuneDeps {
  db: Db;
  host: string;
  backend: GpuBackend;
  timeScale: number;
  devices: DeviceInfo[];
  caps: CapOwnership;
  /** Environment of the job (the caller's, plus what a simulated job needs to find its GPUs and clock). */
  jobEnv: NodeJS.ProcessEnv;
  cwd?: string;
  /** The job's own output, passed through. */
  onOutput: (data: string) => void;
  /** What the tuner is doing, one line each. */
  onNote: (line: string) => void;
  /** The engine's events (the app's console follows the session through them): sweep events plus `tune.status`. */
  emit?: (...e: EventArgs) => void;
}

export type { CapProfile, TuneReport } from './report-text';

/** The stages a session of this process goes through (interrupted is found later, by another process). */
type Stage = Exclude<TuneStatus['stage'], 'interrupted'>;

const TICK_MS = 50;
const FLUSH_MS = 250;

/** Runs one tuning session; `done` resolves after the limits are restored. */
export class TuneSession {
  readonly sweepId: number;
  readonly done: Promise<TuneReport>;
  private readonly deviceIds = new Map<string, number>();
  private readonly recorder: SampleRecorder;
  private readonly follower: ProgressFollower;
  private search: CapSearch;
  private job: PtyRun | null = null;
  private sampler: DeviceSampler | null = null;
  private stopping: string | null = null;
  private signalled = false;
  private readonly recent: { t: number; power_w: number }[] = [];
  private readonly visitRuns: (TuneVisit & { run_id: number; phase: number })[] = [];
  private phaseNo = 1;
  private readonly phaseChanges: { t: number; what: string }[] = [];
  private profilingTotal = 0;
  /** The cap each phase of the job held (a phase that ended while profiling holds none). */
  private readonly heldByPhase = new Map<number, number>();
  /** What `tune.status` says: the stage, the cap set now, the visit's run. */
  private readonly live: { stage: Stage; cap_w: number | null; held_w: number | null; run_id: number | null; note: string | null } = { stage: 'warmup', cap_w: null, held_w: null, run_id: null, note: null };
  private jobStart = 0;
  private statusSentAt = 0;

  constructor(
    private readonly deps: TuneDeps,
    private readonly opts: TuneOptions,
  ) {
    for (const d of deps.devices) this.deviceIds.set(d.id, upsertDevice(deps.db, deps.host, d));
    this.sweepId = createSweep(
      deps.db,
      { name: opts.plan.name, plan: opts.plan, host: deps.host, backend: deps.backend.name, simulated: deps.backend.simulated, environment: collectEnvironment() },
      [],
    ).sweepId;
    deps.caps.setSweep(this.sweepId);
    this.recorder = new SampleRecorder(deps.db, this.sweepId, this.deviceIds, () => undefined);
    this.follower = new ProgressFollower(opts.adapter);
    this.search = this.newSearch(opts.seed);
    this.done = this.execute();
  }

  private get defaultW(): number {
    return this.deps.devices[0]!.default_limit_w ?? this.deps.devices[0]!.max_limit_w ?? Math.max(...this.opts.caps);
  }

  private newSearch(seed: number): CapSearch {
    const d = this.deps.devices[0]!;
    return new CapSearch({
      caps: this.opts.caps,
      limits: { min_w: d.min_limit_w ?? Math.min(...this.opts.caps), max_w: d.max_limit_w ?? Math.max(...this.opts.caps), granularity_w: 1 },
      default_w: this.defaultW,
      selector: this.opts.selector,
      margin: this.opts.margin,
      alpha: this.opts.alpha,
      budget_s: this.opts.max_profile_share * this.opts.expected_s,
      seed,
    });
  }

  /** Ctrl-C, SIGTERM, the app's stop: limits back at once, the job's process tree ended. */
  cancel(why: string): void {
    if (this.stopping) return;
    this.signalled = true;
    this.stopping = why;
    void this.deps.caps.restore();
    void this.job?.kill();
  }

  /** Types into the job's terminal (the app's console); false when the job is not running. */
  write(data: string): boolean {
    if (!this.job || this.stopping) return false;
    this.job.write(data);
    return true;
  }

  private emit(...e: EventArgs): void {
    this.deps.emit?.(...e);
  }

  private note(line: string): void {
    this.live.note = line;
    this.deps.onNote(line);
    this.sendStatus();
  }

  /** What the tuner is doing now, as `tune.status` says it (and the database keeps at the end). */
  private statusNow(): TuneStatus {
    const jobS = Math.max(0, this.now() - this.jobStart);
    return {
      sweep_id: this.sweepId,
      stage: this.live.stage,
      cap_w: this.live.cap_w,
      held_w: this.live.held_w,
      visits: this.visitRuns.length,
      profiling_s: this.profilingTotal,
      profiling_share: jobS > 0 ? this.profilingTotal / jobS : 0,
      budget_s: this.search.budgetS,
      job_s: jobS,
      expected_s: this.opts.expected_s,
      default_limit_w: this.defaultW,
      note: this.live.note,
    };
  }

  /** `tune.status` now, and `sweep.progress` when the stage or cap changed (the console's run line and shading). */
  private sendStatus(stageChanged = false, status = this.statusNow()): void {
    if (!this.deps.emit) return;
    this.statusSentAt = Date.now();
    this.emit('tune.status', status);
    if (!stageChanged) return;
    const jobS = Math.max(0, this.now() - this.jobStart);
    const visiting = this.live.stage === 'visit';
    this.emit('sweep.progress', {
      sweep_id: this.sweepId,
      run_id: this.live.run_id,
      runs_done: this.visitRuns.length,
      run_count: this.visitRuns.length + (visiting ? 1 : 0),
      workload: this.workloadName(),
      cap_w: this.live.cap_w,
      repetition: visiting ? this.search.visits.filter((v) => v.cap_w === this.live.cap_w).length + 1 : null,
      reason: visiting ? `profiling visit ${this.visitRuns.length + 1}` : this.live.stage === 'hold' ? `held: ${this.live.note ?? ''}` : null,
      phase: this.live.stage === 'warmup' ? 'warmup' : visiting ? 'measure' : this.live.stage === 'hold' ? 'idle' : 'cooldown',
      // Job time over the expected job time: a tune has no fixed run count.
      fraction: Math.min(1, jobS / this.opts.expected_s),
    });
  }

  private stageIs(stage: Stage, cap_w: number | null, run_id: number | null): void {
    Object.assign(this.live, { stage, cap_w, run_id, held_w: stage === 'hold' || stage === 'ended' ? cap_w : null });
    this.recordStage();
    this.sendStatus(true);
  }

  /** Stored at each stage: a session whose CapLab is killed still says what it was doing (tune/interrupted.ts). */
  private recordStage(): void {
    setTuneStatus(this.deps.db, this.sweepId, this.statusNow());
  }

  private runFinished(runId: number): void {
    const run = getRun(this.deps.db, runId);
    if (run) this.emit('run.finished', { sweep_id: this.sweepId, run, status: run.status });
  }

  private get indexes(): number[] {
    return this.deps.devices.map((d) => d.index);
  }

  private now(): number {
    return this.deps.backend.now();
  }

  /** Reads every device's energy counter into the samples; returns the latest counter value's time (null: none had one). */
  private async readCounters(): Promise<number | null> {
    const { backend } = this.deps;
    let last: number | null = null;
    for (const d of this.deps.devices) {
      const { t, energy_mj } = await counterReading(backend, d.index);
      if (energy_mj === null) continue;
      this.recorder.collect([Sample.parse({ device_id: d.id, t, power_w: null, power_kind: 'counter', energy_mj })]);
      last = Math.max(last ?? t, t);
    }
    return last;
  }

  /** GPU energy per device over [from, to] from the stored samples (the sampler's and the counter reads). */
  private energyOver(from: number, to: number): { per: { deviceId: number; energy_j: number | null; mean_w: number | null; sensor: string | null }[]; total: number | null } {
    this.sampler?.drain();
    this.recorder.flush();
    const per = this.deps.devices.map((d) => {
      const deviceId = this.deviceIds.get(d.id)!;
      const e = windowEnergy(sweepSamplesInRange(this.deps.db, this.sweepId, deviceId, from - 30, to + 30), { start: from, end: to }, { device_id: d.id });
      return { deviceId, energy_j: e.energy_j, mean_w: e.mean_w, sensor: e.sensor };
    });
    const total = per.every((p) => p.energy_j !== null) ? per.reduce((a, p) => a + p.energy_j!, 0) : null;
    return { per, total };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
  }

  /** The rate of [from, to): step events for the protocol, else the adapter's reading of the lines of the stretch. */
  private stretch(from: number, to: number): { start: number; end: number; units: number; rate: number; steady: boolean } | null {
    if (this.follower.stepped) {
      const steps = this.follower.steps.filter((s) => s.t - s.dt >= from && s.t <= to);
      if (steps.length === 0) return null;
      const start = steps[0]!.t - steps[0]!.dt;
      const end = steps[steps.length - 1]!.t;
      const units = steps.reduce((a, s) => a + s.units, 0);
      return end > start ? { start, end, units, rate: units / (end - start), steady: true } : null;
    }
    try {
      const r = this.follower.readStretch(from, to, { pattern: this.opts.pattern ?? undefined, units: this.opts.units ?? undefined });
      if (!(r.rate > 0)) return null;
      const w = r.window ?? { start: from, end: to };
      return { start: w.start, end: w.end, units: r.count ?? r.rate * (w.end - w.start), rate: r.rate, steady: true };
    } catch {
      return null;
    }
  }

  private async execute(): Promise<TuneReport> {
    const { db, backend, caps } = this.deps;
    const reserve = reserveSpace(db);
    let status: TuneReport['status'] = 'done';
    let error: string | null = null;
    let exit: PtyExit | null = null;
    let hold: Hold | null = null;
    let restored: CapRestore[];
    const jobStart = this.now();
    this.jobStart = jobStart;
    this.emit('sweep.started', { sweep_id: this.sweepId, run_count: 0, simulated: backend.simulated });
    this.recordStage();
    this.sendStatus(true);
    // Start-up (imports, model load) is real time, whatever the backend's clock: the rate timeout is on the wall clock.
    const jobStartWall = Date.now() / 1000;
    let profileStart: number | null = null;
    let heldFrom: number | null = null;
    let unitsAfter = 0;
    let heldThroughput: number | null = null;
    const flusher = setInterval(() => {
      try {
        this.recorder.flush();
        reserve?.check();
      } catch (e) {
        this.cancel(`could not write to the database: ${(e as Error).message}`);
      }
    }, FLUSH_MS);
    try {
      await caps.journal(this.sweepId);
      const interval = Math.min(2000, Math.max(this.opts.sample_interval_ms, (this.opts.sample_interval_ms * this.deps.timeScale) / 10));
      this.sampler = createSampler({
        mode: 'auto',
        backend,
        indexes: this.indexes,
        intervalMs: interval,
        timeScale: this.deps.timeScale,
        onSamples: (s) => {
          this.recorder.collect(s);
          this.emit('samples', { sweep_id: this.sweepId, run_id: this.recorder.runId, samples: s });
          for (const x of s) if (x.power_w !== null) this.recent.push({ t: x.t, power_w: x.power_w });
          const cut = this.recent.findIndex((x) => x.t > this.now() - 7200);
          if (cut > 0) this.recent.splice(0, cut);
        },
      });
      this.sampler.start();
      let lastOutput = Date.now();
      let onStep: (() => void) | null = null;
      let fileOffset = 0;
      this.job = new PtyRun({
        argv: this.opts.argv,
        env: { ...this.deps.jobEnv, [RUN_TAG_ENV]: caps.tag },
        cwd: this.deps.cwd,
        cols: process.stdout.columns ?? 120,
        rows: process.stdout.rows ?? 30,
        onData: (data) => {
          lastOutput = Date.now();
          this.deps.onOutput(data);
          // One terminal for the whole job (run 0): its output is not split by visit.
          this.emit('pty.data', { sweep_id: this.sweepId, run_id: 0, data });
        },
        onLine: (line) => {
          if (this.opts.file) return;
          const n = this.follower.steps.length;
          this.follower.push(line, this.now());
          if (this.follower.steps.length > n) {
            this.emitSteps(n);
            onStep?.();
          }
        },
      });
      const readFile = () => {
        if (!this.opts.file) return;
        try {
          const size = statSync(this.opts.file).size;
          if (size <= fileOffset) return;
          const fd = openSync(this.opts.file, 'r');
          const buf = Buffer.alloc(size - fileOffset);
          readSync(fd, buf, 0, buf.length, fileOffset);
          closeSync(fd);
          const text = buf.toString('utf8');
          const end = text.lastIndexOf('\n');
          if (end < 0) return;
          fileOffset += Buffer.byteLength(text.slice(0, end + 1));
          for (const line of text.slice(0, end).split('\n')) {
            const l = line.replace(/\r$/, '');
            if (this.follower.header === null) this.follower.header = l;
            else this.follower.push(l, this.now());
          }
        } catch {
          // Not written yet.
        }
      };
      let exited = false;
      void this.job.exited.then((e) => {
        exit = e;
        exited = true;
      });

      let stage = 'warmup' as Stage;
      let visitCap: number | null = null;
      let visitRun = 0;
      let capSetT = 0;
      let settleRead = false;
      // Where a visit's steps may count from: the settling time, or the counter read after it when that came later.
      // Energy between two readings is interpolated as if power were even; a window that began before the first
      // reading after the cap change would price the old cap's power into the new cap's window.
      let countFrom = 0;
      let visitFrom = 0;
      let phase = new PhaseWatch(null, this.opts.phase);
      let windowFrom = 0;
      let holdWindowS = 0;

      const startVisit = async (cap: number): Promise<void> => {
        for (const idx of this.indexes) await caps.set(idx, cap);
        capSetT = this.now();
        visitFrom = this.follower.steps.length;
        settleRead = false;
        countFrom = capSetT + this.opts.visit.settle_s;
        visitCap = cap;
        visitRun = appendRuns(db, this.sweepId, [{ workload: this.workloadName(), cap_w: cap, repetition: this.search.visits.filter((v) => v.cap_w === cap).length + 1, order: this.visitRuns.length }])[0]!;
        updateRun(db, visitRun, { status: 'running', started_at: capSetT, enforced_limit_w: await backend.getPowerLimit(this.indexes[0]!) });
        this.recorder.runId = visitRun;
        stage = 'visit';
        this.stageIs('visit', cap, visitRun);
      };

      const nextStep = async (): Promise<void> => {
        const step = this.search.next();
        if (step.kind === 'visit' && this.opts.hold_w === null) {
          await startVisit(step.cap_w);
          return;
        }
        if (step.kind === 'visit' || this.opts.hold_w !== null) {
          hold = { cap_w: this.opts.hold_w!, reason: 'given', note: `--hold ${this.opts.hold_w} W: no profiling`, optimum: this.search.optimum() };
        } else hold = step.hold;
        this.heldByPhase.set(this.phaseNo, hold.cap_w);
        for (const idx of this.indexes) await caps.set(idx, hold.cap_w);
        this.live.note = `holding ${hold.cap_w} W: ${hold.note}`;
        this.stageIs('hold', hold.cap_w, null);
        this.deps.onNote(this.live.note);
        const ref = this.search.visits.filter((v) => v.cap_w === hold!.cap_w && v.steady);
        const t = describe(ref.map((v) => v.throughput));
        const p = describe(ref.map((v) => v.power_w));
        phase = new PhaseWatch(
          ref.length >= 2 && t.mean && p.mean ? { throughput: t.mean, power_w: p.mean, throughput_sd: t.cv ?? 0, power_sd: p.cv ?? 0 } : null,
          this.opts.phase,
        );
        heldFrom = this.now() + this.opts.visit.settle_s;
        windowFrom = heldFrom;
        holdWindowS = Math.max(10, ...this.search.visits.map((v) => v.end - v.start));
        stage = 'hold';
      };

      const endVisit = async (m: { start: number; end: number; units: number; steady: boolean; rate_rse?: number | null; rate_df?: number }, cut: string | null = null): Promise<void> => {
        await this.readCounters();
        const seconds = this.now() - capSetT;
        const energy = this.energyOver(m.start, m.end);
        const gpus = this.deps.devices.length;
        const fig = runFigures({ duration_s: m.end - m.start, units_in_window: m.units, gpus, gpu: energy.per, cpu: [], overhead_w: this.opts.overhead_w, use_measured_cpu: false });
        const visit: TuneVisit = {
          cap_w: visitCap!,
          start: m.start,
          end: m.end,
          seconds,
          throughput: fig.throughput ?? 0,
          efficiency: fig.efficiency ?? 0,
          power_w: fig.mean_power_w ?? 0,
          steady: m.steady && fig.efficiency !== null,
          rate_rse: m.rate_rse ?? null,
          rate_df: m.rate_df ?? 0,
        };
        for (const p of energy.per) recordRunDevice(db, visitRun, p.deviceId, { energy_j: p.energy_j, mean_power_w: p.mean_w, energy_sensor: p.sensor, enforced_limit_w: null });
        updateRun(db, visitRun, {
          status: visit.steady ? 'done' : 'failed',
          error: visit.steady ? null : (cut ?? 'the visit did not reach a steady state in time'),
          ended_at: this.now(),
          units: this.follower.units ?? this.opts.units,
          warmup_end: m.start,
          measure_start: m.start,
          measure_end: m.end,
          units_in_window: m.units,
          gpus,
          energy_j: energy.total,
          energy_sensor: [...new Set(energy.per.map((p) => p.sensor ?? 'none'))].join('+'),
        });
        this.recorder.runId = null;
        this.search.record(visit);
        this.visitRuns.push({ ...visit, run_id: visitRun, phase: this.phaseNo });
        this.profilingTotal += seconds;
        this.runFinished(visitRun);
        this.note(`visit ${this.visitRuns.length}: ${visit.cap_w} W, ${visit.throughput.toPrecision(5)} ${this.follower.units ?? 'units'}/s per GPU, ${visit.power_w.toFixed(1)} W, ${visit.efficiency.toPrecision(4)} units/J${visit.steady ? '' : ' (not steady: left out)'}`);
        await nextStep();
      };

      const tick = async (): Promise<void> => {
        readFile();
        // Stepped jobs are judged on their own clock (the last step's end): a late tick must not cut a visit short.
        const last = this.follower.steps[this.follower.steps.length - 1];
        const now = this.follower.stepped && last ? last.t : this.now();
        if (Date.now() - lastOutput > this.opts.hang_timeout_s * 1000) {
          status = 'failed';
          error = `the job hung: no output for ${this.opts.hang_timeout_s} s; it was ended and the limits restored`;
          this.cancel(error);
          this.signalled = false;
          return;
        }
        if (Date.now() - this.statusSentAt >= 1000) this.sendStatus();
        if (stage === 'warmup') {
          const adapter = this.follower.resolvedAdapter();
          let ready = false;
          if (adapter === 'protocol') ready = measureVisit(this.follower.steps.slice(-400), jobStart, { ...this.opts.visit, settle_s: 0 }).ready;
          else if (adapter !== null) ready = now - jobStart >= this.opts.text_visit_s && this.stretch(jobStart, now) !== null;
          if (ready) {
            profileStart = now;
            this.note(`the job's rate is steady (read by the ${adapter} adapter); profiling caps ${this.opts.caps.join(', ')} W`);
            await nextStep();
          } else if (Date.now() / 1000 - jobStartWall > this.opts.rate_timeout_s) {
            status = 'refused';
            error = this.noRateMessage(adapter);
            this.cancel(error);
            this.signalled = false;
          }
        } else if (stage === 'visit') {
          if (!settleRead && now >= capSetT + this.opts.visit.settle_s) {
            settleRead = true;
            countFrom = Math.max(countFrom, (await this.readCounters()) ?? countFrom);
          }
          // The profiling budget is a bound, not a target: a visit that runs longer than the ones before it is cut
          // where the budget ends (left out), and the best cap so far is held.
          const overBudget = this.search.reachedBudget(this.now() - capSetT);
          if (this.follower.stepped) {
            const m = measureVisit(this.follower.steps.slice(visitFrom), countFrom, { ...this.opts.visit, settle_s: 0 });
            if (m.ready && settleRead) await endVisit(m);
            else if (overBudget) await endVisit({ ...m, steady: false }, `cut at the profiling budget (${this.search.budgetS.toFixed(0)} s) before it was steady`);
            else if (now - capSetT > this.opts.visit.max_s) await endVisit({ ...m, steady: false });
          } else if (overBudget) {
            await endVisit({ start: countFrom, end: this.now(), units: 0, steady: false }, `cut at the profiling budget (${this.search.budgetS.toFixed(0)} s)`);
          } else if (settleRead && now - countFrom >= this.opts.text_visit_s) {
            const s = this.stretch(countFrom, now);
            await endVisit(s ?? { start: countFrom, end: now, units: 0, steady: false });
          }
        } else if (stage === 'hold' && now - windowFrom >= holdWindowS) {
          const s = this.stretch(windowFrom, now);
          const pw = this.recent.filter((x) => x.t >= windowFrom && x.t < now);
          windowFrom = now;
          if (!s || pw.length === 0) return;
          const gpus = this.deps.devices.length;
          const verdict = phase.push({ throughput: s.rate / gpus, power_w: pw.reduce((a, x) => a + x.power_w, 0) / pw.length });
          if (verdict.changed) {
            this.phaseChanges.push({ t: now, what: verdict.what });
            this.note(`phase change: ${verdict.what}; profiling again`);
            this.phaseNo++;
            heldFrom = null;
            this.search = this.newSearch(this.opts.seed + this.phaseNo);
            hold = null;
            await nextStep();
          }
        }
      };
      // Visits end on the step that completes them (a sped-up simulated job prints thousands a second); the timer
      // covers time-based checks (hangs, adapter visits, hold windows).
      let busy = false;
      let again = false;
      const kick = (): void => {
        if (busy) {
          again = true;
          return;
        }
        busy = true;
        void (async () => {
          try {
            do {
              again = false;
              if (!exited && !this.stopping) await tick();
            } while (again);
          } catch (e) {
            status = 'failed';
            error = (e as Error).message;
            this.cancel(error);
            this.signalled = false;
          } finally {
            busy = false;
          }
        })();
      };
      onStep = kick;
      while (!exited && !this.stopping) {
        kick();
        await this.sleep(TICK_MS);
      }
      while (busy) await this.sleep(5);
      if (this.stopping && !exited) await this.job.kill();
      await this.job.exited;
      if (stage === 'visit' && visitRun) {
        updateRun(db, visitRun, { status: 'cancelled', error: 'the job ended during the visit', ended_at: this.now() });
        this.runFinished(visitRun);
      }
      if (stage === 'warmup' && status === 'done' && !this.stopping) {
        status = 'refused';
        error = this.noRateMessage(this.follower.resolvedAdapter(), true);
      }
      if (hold && heldFrom !== null) {
        const end = this.now();
        const s = this.stretch(heldFrom, end);
        heldThroughput = s ? s.rate / this.deps.devices.length : null;
      }
      if (this.signalled) status = 'cancelled';
      if (this.stopping && !error) error = this.stopping;
      if (profileStart !== null) {
        const s = this.stretch(profileStart, this.now());
        unitsAfter = s?.units ?? 0;
      }
      const jobExit: PtyExit | null = exit;
      if (status === 'done' && jobExit !== null && (jobExit as PtyExit).exitCode !== 0) {
        status = 'failed';
        error = `the job exited with code ${(jobExit as PtyExit).exitCode}`;
      }
    } catch (e) {
      status = 'failed';
      error = (e as Error).message;
    } finally {
      clearInterval(flusher);
      // Limits first, then whatever the job left behind, then the bookkeeping.
      restored = await caps.restore();
      await caps.release();
      if (this.job) await this.job.kill().catch(() => undefined);
      await killTagged(caps.tag);
      this.sampler?.stop();
      try {
        await this.readCounters();
        this.recorder.flush();
      } catch (e) {
        error = `${error ? `${error}; ` : ''}could not record the end: ${(e as Error).message}`;
      }
    }
    const end = this.now();
    const total = this.energyOver(jobStart, end).total;
    const s0 = this.follower.steps[0];
    const firstStep = s0 ? s0.t - s0.dt : null;
    const lastStep = this.follower.steps[this.follower.steps.length - 1]?.t ?? null;
    const failedRestores = restored.filter((r) => !r.ok).map((r) => `could not restore ${r.device_name} to ${r.before_w} W: ${r.error}`);
    if (failedRestores.length) error = [error, ...failedRestores].filter(Boolean).join('; ');
    const report: TuneReport = {
      sweep_id: this.sweepId,
      status,
      error,
      simulated: backend.simulated,
      selector: this.opts.selector,
      adapter: this.follower.resolvedAdapter(),
      units: this.follower.units ?? this.opts.units,
      devices: this.deps.devices.map((d) => `${d.id} ${d.name}`),
      default_limit_w: this.defaultW,
      cap_held_w: (hold as Hold | null)?.cap_w ?? this.heldByPhase.get(this.phaseNo - 1) ?? null,
      hold_reason: (hold as Hold | null)?.reason ?? null,
      hold_note: (hold as Hold | null)?.note ?? null,
      job_exit_code: (exit as PtyExit | null)?.exitCode ?? null,
      job_ended_by_caplab: Boolean(this.stopping),
      job_seconds: end - jobStart,
      energy_j: total,
      energy_after_first_step_j: firstStep !== null ? this.energyOver(firstStep, end).total : null,
      first_step_t: firstStep,
      energy_of_steps_j: firstStep !== null && lastStep !== null ? this.energyOver(firstStep, lastStep).total : null,
      last_step_t: lastStep,
      units_done: null,
      profiling_s: this.profilingTotal,
      profiling_share: (end - jobStart) > 0 ? this.profilingTotal / (end - jobStart) : 0,
      profiling_off_cap_s: this.visitRuns.filter((v) => this.heldByPhase.get(v.phase) !== v.cap_w).reduce((a, v) => a + v.seconds, 0),
      reprofiles: this.phaseChanges.length,
      phase_changes: this.phaseChanges,
      savings: null,
      profile: this.profile(),
      visits: this.visitRuns,
      restored,
    };
    if (profileStart !== null) {
      report.units_done = this.stretch(jobStart, end)?.units ?? null;
      // The job's energy up to its last step, as the estimate prices (units done x energy per unit): the tail after it
      // (the exit, CapLab's restore) is the same at any cap, and left out of both it only adds the session's latency.
      const workJ = lastStep !== null ? this.energyOver(jobStart, lastStep).total : total;
      if (workJ !== null && this.phaseChanges.length === 0) {
        const beforeJ = this.energyOver(jobStart, profileStart).total ?? 0;
        report.savings = estimateSavings({
          visits: this.search.visits,
          default_w: this.defaultW,
          gpus: this.deps.devices.length,
          job_energy_j: workJ,
          before_energy_j: beforeJ,
          units_after: unitsAfter,
          held_throughput: heldThroughput,
        });
      } else if (this.phaseChanges.length) {
        report.savings = { default_energy_j: null, saved_j: null, saved_fraction: null, slowdown: null, note: 'the job changed phase: the profile of one phase does not price the other, so no saving is estimated' };
      }
    }
    this.live.note = report.cap_held_w !== null ? `held ${report.cap_held_w} W${report.hold_note ? `: ${report.hold_note}` : ''}` : (report.error ?? this.live.note);
    Object.assign(this.live, { stage: 'ended', cap_w: report.cap_held_w, run_id: null, held_w: report.cap_held_w });
    const ended: TuneStatus = { ...this.statusNow(), outcome: tuneOutcome(report) };
    try {
      reserve?.release();
      // Before the end: a console that reloads on sweep.finished finds the outcome stored.
      setTuneStatus(db, this.sweepId, ended);
      setTuneReport(db, this.sweepId, tuneReportText(report));
      finishSweep(db, this.sweepId, status === 'refused' ? 'failed' : status, error);
    } catch (e) {
      report.error = `${report.error ? `${report.error}; ` : ''}could not record the session's end: ${(e as Error).message}`;
    }
    this.sendStatus(true, ended);
    this.emit('sweep.finished', { sweep_id: this.sweepId, status: status === 'refused' ? 'failed' : status, error: report.error, restored });
    return report;
  }

  /** The throughput of each new protocol step, per GPU (the console's throughput trace). */
  private emitSteps(from: number): void {
    if (!this.deps.emit) return;
    const gpus = this.deps.devices.length;
    for (const st of this.follower.steps.slice(from)) {
      if (st.dt > 0) this.emit('throughput', { sweep_id: this.sweepId, run_id: this.live.run_id ?? 0, t: st.t, rate: st.units / st.dt / gpus });
    }
  }

  private workloadName(): string {
    return this.phaseNo === 1 ? 'command' : `command-phase${this.phaseNo}`;
  }

  private noRateMessage(adapter: string | null, exited = false): string {
    const tried = this.opts.adapter === 'auto' ? `auto-detection over ${adapterNames.join(', ')}` : `the ${this.opts.adapter} adapter`;
    const where = this.opts.file ? `the file ${this.opts.file}` : "the job's output";
    const when = exited ? 'before the job ended' : `within ${this.opts.rate_timeout_s} s`;
    return adapter === null
      ? `no rate could be read from ${where} ${when} (tried ${tried}); no limit was changed. Name the reader with --adapter, or --pattern for the regex adapter`
      : `${where} gave no steady rate through the ${adapter} adapter ${when}; no limit was changed`;
  }

  private profile(): CapProfile[] {
    const caps = [...new Set(this.search.visits.map((v) => v.cap_w))].sort((a, b) => a - b);
    return caps.map((cap_w) => {
      const vs = this.search.visits.filter((v) => v.cap_w === cap_w && v.steady);
      return { cap_w, visits: vs.length, throughput: describe(vs.map((v) => v.throughput)), efficiency: describe(vs.map((v) => v.efficiency)), power_w: describe(vs.map((v) => v.power_w)) };
    });
  }
}
