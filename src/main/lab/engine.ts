import { hostname } from 'node:os';
import { describeMigration, openDb, type Db } from './store/db';
import { deleteSweep, getRun, getSweep, listSweeps, markInterruptedSweeps, runsOfSweep, setSweepNotes } from './store/sweeps';
import { storedTuneStatus } from './tune/interrupted';
import { devicesOfRun } from './store/devices';
import { metricsOfRun, runStream } from './store/samples';
import { decimateField } from './store/sample-blocks';
import type { ReadingField } from '../../shared/sample';
import { CapOwnership, restoreDeadOwners, type CapContext } from './sweep/cap-guard';
import { describeOwner, LeaseHeldError, probeLease } from './lease/device-lease';
import { deviceLeaseKey } from './lease/host-journal';
import { newRunTag } from './runner/tagged-processes';
import { SweepOrchestrator } from './sweep/orchestrator';
import { parsePlan, planFromYaml, planToYaml } from './sweep/plan-file';
import { NotFoundError, PlanError } from './input/errors';
import { issueLines, marked } from './input/issues';
import { checkPlan, CheckedPlan, readPlan, type PlanHistory, type PlanVerdict } from './sweep/plan-verdict';
import { listCpuPackages, openCpuPower, openLabBackend, reopenBackend, type PtyHandler } from './gpu/lab-backend';
import type { LabBackend } from './gpu/backend';
import type { IPty } from 'node-pty';
import { listWorkloadSummaries, workloadCommandFor, workloadSoftware } from './sweep/workload-command';
import { isAlive } from './runner/process-tree';
import { VERSION } from './version';
import { buildCommit } from './build-info';
import { dataDir } from './paths';
import { isAbsolute, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { LabError } from '../../shared/errors';
import { datasetRecord, datasetRecords, removeDataset } from './store/dataset-records';
import { DatasetError, datasetTrace, importDataset, saveSegment } from './datasets/service';
import { previewImport } from './datasets/preview';
import { ImportError } from '../../core/import';
import { ImportFormat } from '../../shared/dataset';
import { clusterCancel, clusterCollect, clusterJobs, clusterStatus } from './cluster/service';
import { submitJob, type Prepared } from './cluster/submit';
import { taskRuns } from './cluster/task-result';
import { analyzeSweepNodes } from './cluster/node-analysis';
import { listRunsPage, listSamplesPage, withNodes } from './paging';
import { analyzeStoredSweep } from './analysis/analyze-stored';
import { BestCapCache } from './analysis/best-caps';
import { energyInRange } from './analysis/load';
import { analyzeDataset } from './datasets/analysis';
import { datasetEnergy } from './analysis/dataset-energy';
import { importPaths, type ImportOptions, type ImportOutcome } from './datasets/importer';
import { loadSources } from './analysis/sources';
import { overlayTraces } from './analysis/overlay';
import { analyzeSweep } from '../../core/analysis/analyze';
import { withCost } from './analysis/cost';
import { Source } from '../../shared/source';
import { exportForApp } from './exporters/app-export';
import { FileOutputs } from './exporters/service';
import { findBrowser, printPdfWithChromium } from './exporters/chromium';
import type { PdfPrinter } from './report/write';
import { decimateMinMax } from '../../core/decimate';
import { adaptiveEstimate } from '../../core/sweep/adaptive-summary';
import { scheduleRuns } from '../../core/schedule';
import { TuneStart } from '../../shared/tune';
import type { EventArgs, LabApi, LabEventListener, MethodInput, MethodOutput } from '../../shared/api';
import type { BackendChoice, DeviceInfo } from '../../shared/device';
import type { SweepStatus } from '../../shared/records';
import type { TaskRun } from '../../shared/cluster';
import { FacilitySeriesStore, listFacilityConfigs, runFacilityFile, runFacilityYaml, searchHostFile } from './facility/engine-facility';
import type { HostSearchResult } from '../../core/facility/host-search';
import { facilityReportFile } from './facility/report-file';
import { startTune, type StartedTune, type TuneRequest } from './tune/start';
import type { TuneSession } from './tune/session';
import { adapterNames, getAdapter } from '../../core/adapters';
import { CapGridError, parseCaps } from '../../core/tune/grid';

export interface EngineOptions {
  dbPath: string;
  /** Overrides the backend a plan names (the CLI's --backend). */
  backend?: BackendChoice;
  env?: NodeJS.ProcessEnv;
  /**
   * Restore limits left changed by killed sweeps (dead owners only) when the engine opens. Default false: only
   * what may change limits anyway (sweep, restore-caps, serve, the app) asks for it; read-only commands never set one.
   */
  restoreOnOpen?: boolean;
  /** Also hand the sudo pty of a limit change to this (the CLI bridges it to the user's terminal). */
  onPty?: PtyHandler;
  /** Open the database read-only (commands that only read); methods that would write refuse. */
  readOnly?: boolean;
  /** Prints report HTML to PDF (the desktop app: Electron's printToPDF). Default: a headless Chromium found on this machine. */
  printPdf?: PdfPrinter;
}

export interface BeginOptions {
  /** Wait for devices another sweep holds instead of refusing. */
  wait?: boolean;
  /** Where the plan came from (its file), named in the error of a bad plan. */
  where?: string;
  onWait?: (message: string) => void;
}

/** The engine behind every face: the contract's methods over one lab database. Plain Node, no Electron. */
export class Engine implements LabApi {
  readonly host = hostname();
  private listeners = new Set<LabEventListener>();
  private active = new Map<number, SweepOrchestrator>();
  /** Tuning sessions running in this engine (the CLI's one, or the app's), by their sweep id. */
  private tunes = new Map<number, TuneSession>();
  private bestCapCache = new BestCapCache();
  /** Facility runs in progress, each cancellable (cancelFacility). */
  private facilityRuns = new Set<AbortController>();
  /** The last page run's full-resolution series (facilitySeries: the Facility page's zoom). */
  private facilitySeriesKept = new FacilitySeriesStore();
  /** The pty of a running `sudo … -pl` (limit change as a normal user), fed to the terminal panel. */
  private capPty: IPty | null = null;
  /** The backend kept open for sampleDevices polling. */
  private monitor: { choice: BackendChoice; lab: Promise<LabBackend> } | null = null;
  /** What `open` restored from an earlier, killed sweep. */
  restoredAtOpen: MethodOutput<'restoreCaps'> = [];
  /** Exports and reports written to files the caller names (the CLI's export and report). */
  readonly files: FileOutputs;

  private constructor(
    readonly db: Db,
    private readonly opts: EngineOptions,
  ) {
    this.files = new FileOutputs(db, opts.env ?? process.env);
  }

  static async open(opts: EngineOptions): Promise<Engine> {
    const engine = new Engine(openDb(opts.dbPath, { readonly: opts.readOnly }), opts);
    if (!opts.readOnly) markInterruptedSweeps(engine.db, isAlive);
    if (opts.restoreOnOpen ?? false) engine.restoredAtOpen = await engine.restoreCaps({});
    return engine;
  }

  /** "migrated FILE from schema A -> B; the copy from before is at …" when opening migrated the database, else null. */
  migrationNote(): string | null {
    return describeMigration(this.opts.dbPath, this.db);
  }

  /** Shows a limit change's sudo prompt in the run's terminal (pty.data) and takes the password from writePty. */
  private readonly handlePty: PtyHandler = (p) => {
    this.capPty = p;
    const sweep = [...this.active.values()][0];
    p.onData((data) => this.emit('pty.data', { sweep_id: sweep?.sweepId ?? 0, run_id: sweep?.activeRunId ?? 0, data }));
    p.onExit(() => {
      if (this.capPty === p) this.capPty = null;
    });
    this.opts.onPty?.(p);
  };

  private writable(what: string): void {
    if (this.opts.readOnly) throw new LabError('invalid', `cannot ${what}: this engine opened the database read-only`);
  }

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env ?? process.env;
  }

  subscribe(cb: LabEventListener): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  private emit(...e: EventArgs): void {
    for (const l of this.listeners) {
      try {
        l(...e);
      } catch {
        // A listener's failure must not stop a sweep.
      }
    }
  }

  async health(): Promise<MethodOutput<'health'>> {
    return { ok: true, version: VERSION, backend: this.opts.backend ?? 'auto' };
  }

  async listDevices(input: MethodInput<'listDevices'>): Promise<MethodOutput<'listDevices'>> {
    const lab = await openLabBackend(input.backend ?? this.opts.backend ?? 'auto', { env: this.env });
    try {
      const cpus = await listCpuPackages(this.env);
      const reason = cpus.reason ? `${lab.reason}; CPU power (RAPL): ${cpus.reason}` : lab.reason;
      return { backend: lab.backend.name, reason, devices: [...(await lab.backend.listDevices()), ...cpus.devices] };
    } finally {
      await lab.backend.close();
    }
  }

  async validatePlan(input: MethodInput<'validatePlan'>): Promise<MethodOutput<'validatePlan'>> {
    const checked = await this.readPlan(input.plan);
    try {
      return this.validateChecked(checked);
    } finally {
      await checked.close();
    }
  }

  /** validatePlan's answer for a plan already read (`caplab sweep --check` reads it before it opens the database). */
  validateChecked(checked: CheckedPlan): MethodOutput<'validatePlan'> {
    const r = checked.verdict(this.history);
    if (!r.plan || r.issues.length) return { ok: false, errors: issueLines(r.issues), issues: marked(r.issues, 'error'), plan: null, run_count: 0, estimate_s: null, estimate_basis: null, warnings: [] };
    return { ok: true, errors: [], issues: [], plan: r.plan, run_count: scheduleRuns(r.plan).length, estimate_s: r.estimate?.seconds ?? null, estimate_basis: r.estimate?.basis ?? null, warnings: marked(r.warnings, 'warning'), adaptive_estimate: adaptiveEstimate(r.plan, r.timeScale) };
  }

  /** Every problem of a plan at once, each at its field, and its warnings (plan-verdict.ts, with this database's earlier runs); this engine's --backend applies. */
  checkPlan(value: unknown): Promise<PlanVerdict> {
    return checkPlan(value, { backend: this.opts.backend, env: this.env, history: this.history });
  }

  /** A plan read once against this engine's --backend (or the plan's); the caller runs it or closes it. */
  private readPlan(value: unknown): Promise<CheckedPlan> {
    return readPlan(value, { backend: this.opts.backend, env: this.env });
  }

  /** Where a plan's warnings look up earlier runs: this database, under this host's name. */
  private get history(): PlanHistory {
    return { db: this.db, host: this.host };
  }

  async planToYaml(input: MethodInput<'planToYaml'>): Promise<MethodOutput<'planToYaml'>> {
    return { yaml: planToYaml(parsePlan(input.plan)) };
  }

  async planFromYaml(input: MethodInput<'planFromYaml'>): Promise<MethodOutput<'planFromYaml'>> {
    try {
      return { ok: true, errors: [], issues: [], plan: planFromYaml(input.yaml) };
    } catch (e) {
      if (e instanceof PlanError) return { ok: false, errors: e.errors, issues: marked(e.issues, 'error'), plan: null };
      throw e;
    }
  }

  /** Validates everything first (nothing is written for a bad plan), then starts the sweep in the background. */
  async startSweep(input: MethodInput<'startSweep'>): Promise<MethodOutput<'startSweep'>> {
    return { sweep_id: (await this.beginSweep(input.plan)).sweepId };
  }

  private get capContext(): CapContext {
    return { db: this.db, dbPath: this.opts.dbPath, host: this.host, env: this.env, open: (name, o) => reopenBackend(name, o, this.env, this.handlePty) };
  }

  /**
   * Leases the plan's devices host-wide. A device leased by another live sweep: LeaseHeldError naming it, or with
   * `wait`, a retry every second (onWait hears who is waited for, each time the owner changes).
   */
  private async takeCaps(lab: LabBackend, devices: DeviceInfo[], opts: BeginOptions): Promise<CapOwnership> {
    let last = '';
    for (;;) {
      try {
        return await CapOwnership.take(this.capContext, lab.backend, lab.reopenOpts, devices, newRunTag());
      } catch (e) {
        if (!(e instanceof LeaseHeldError) || !opts.wait) throw e;
        if (e.message !== last) opts.onWait?.(e.message);
        last = e.message;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** Observe-only sweeps take no lease, but say when another sweep is capping a device they watch. */
  private async observeNotices(lab: LabBackend, devices: DeviceInfo[]): Promise<string[]> {
    const out: string[] = [];
    for (const d of devices) {
      const held = await probeLease(deviceLeaseKey(d, lab.reopenOpts), this.env);
      if (held) out.push(`${d.name} (#${d.index}) is being capped by ${describeOwner(held.owner)}: this observe-only sweep records that sweep's caps`);
    }
    return out;
  }

  /**
   * Like startSweep, but hands back the running orchestrator (the CLI waits on it). `planValue` is a value to read, or a
   * CheckedPlan the caller read already (`caplab sweep`, before it opened the database): the sweep runs on the
   * backend it was checked on, and it is closed if the sweep does not start.
   */
  async beginSweep(planValue: unknown, opts: BeginOptions = {}): Promise<SweepOrchestrator> {
    const checked = planValue instanceof CheckedPlan ? planValue : await this.readPlan(planValue);
    let caps: CapOwnership | null = null;
    try {
      this.writable('start a sweep');
      if (checked.issues.length) throw PlanError.of(opts.where ?? 'plan', checked.issues);
      this.refuseWhileBusy();
      const warnings = checked.verdict(this.history).warnings;
      const { plan, lab, devices } = checked.forSweep(this.handlePty);
      const notices = plan.observe_only ? await this.observeNotices(lab, devices) : [];
      if (!plan.observe_only) caps = await this.takeCaps(lab, devices, opts);
      const cpu = await openCpuPower(lab, this.env);
      const sweep = new SweepOrchestrator(
        {
          db: this.db,
          host: this.host,
          backend: lab.backend,
          caps,
          timeScale: lab.timeScale,
          devices,
          cpu,
          workloadCommand: (ref, idx, run) => workloadCommandFor(lab, ref, idx, run, this.env),
          software: (p) => workloadSoftware(lab, p, this.env),
          emit: (...e) => this.emit(...e),
        },
        plan,
      );
      sweep.notices.push(...notices, ...(caps?.restoredStale ?? []).map((r) => `a limit left by an earlier, killed sweep was restored first: ${r.device_name} to ${r.before_w} W (was ${r.was_w} W)`));
      sweep.notices.push(...warnings.map((w) => `warning: ${issueLines([w])[0]}`));
      this.active.set(sweep.sweepId, sweep);
      void sweep.done.finally(() => {
        this.active.delete(sweep.sweepId);
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

  /** `caplab tune -- CMD`: the job runs under a tuning session on leased, journalled devices (src/main/lab/tune). */
  async beginTune(req: TuneRequest, out: { onOutput: (d: string) => void; onNote: (l: string) => void }, opts: BeginOptions = {}): Promise<StartedTune> {
    this.writable('tune a job');
    this.refuseWhileBusy();
    const started = await startTune(
      {
        db: this.db,
        host: this.host,
        env: this.env,
        openLab: (plan) => openLabBackend(this.opts.backend ?? plan.backend, { env: this.env, plan, onPty: this.handlePty }),
        takeCaps: (lab, devices) => this.takeCaps(lab, devices, opts),
        emit: (...e) => this.emit(...e),
      },
      req,
      out,
    );
    const { session } = started;
    this.tunes.set(session.sweepId, session);
    void session.done.finally(() => this.tunes.delete(session.sweepId));
    return started;
  }

  /** One sweep or tuning session at a time per engine (the lease refuses a second on the same GPUs anyway, less clearly). */
  private refuseWhileBusy(): void {
    const sweep = [...this.active.keys()][0];
    if (sweep !== undefined) throw new LabError('conflict', `sweep ${sweep} is still running; cancel it or wait for it to end`);
    const tune = [...this.tunes.keys()][0];
    if (tune !== undefined) throw new LabError('conflict', `tuning session ${tune} is still running; cancel it or wait for it to end`);
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
    const session = this.tunes.get(input.sweep_id);
    if (!session) return { cancelled: false };
    session.cancel('cancelled from the app');
    await session.done;
    return { cancelled: true };
  }

  async cancelSweep(input: MethodInput<'cancelSweep'>): Promise<MethodOutput<'cancelSweep'>> {
    const sweep = this.active.get(input.sweep_id);
    // A tuning session is a sweep to the console: its Cancel ends the session.
    if (!sweep) return this.tunes.has(input.sweep_id) ? this.cancelTune(input) : { cancelled: false };
    sweep.cancel();
    await sweep.done;
    return { cancelled: true };
  }

  /** Cancels every running sweep and waits until their limits are restored (SIGINT/SIGTERM, app quit). */
  async cancelAll(): Promise<SweepStatus[]> {
    const sweeps = [...this.active.values()];
    const tunes = [...this.tunes.values()];
    for (const s of sweeps) s.cancel();
    for (const t of tunes) t.cancel('the engine is closing');
    const [statuses] = await Promise.all([Promise.all(sweeps.map((s) => s.done)), Promise.all(tunes.map((t) => t.done))]);
    return statuses;
  }

  async listSweeps(input: MethodInput<'listSweeps'>): Promise<MethodOutput<'listSweeps'>> {
    return listSweeps(this.db, input.search);
  }

  async getTuneStatus(input: MethodInput<'getTuneStatus'>): Promise<MethodOutput<'getTuneStatus'>> {
    if (!getSweep(this.db, input.sweep_id)) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return storedTuneStatus(this.db, input.sweep_id);
  }

  async getSweep(input: MethodInput<'getSweep'>): Promise<MethodOutput<'getSweep'>> {
    const sweep = getSweep(this.db, input.sweep_id);
    if (!sweep) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return { sweep, runs: withNodes(this.db, input.sweep_id, runsOfSweep(this.db, input.sweep_id)) };
  }

  async listRuns(input: MethodInput<'listRuns'>): Promise<MethodOutput<'listRuns'>> {
    return listRunsPage(this.db, input);
  }

  async listSamples(input: MethodInput<'listSamples'>): Promise<MethodOutput<'listSamples'>> {
    return listSamplesPage(this.db, input);
  }

  async setSweepNotes(input: MethodInput<'setSweepNotes'>): Promise<MethodOutput<'setSweepNotes'>> {
    this.writable('set a sweep’s tags and notes');
    const tags = input.tags === undefined ? undefined : [...new Set(input.tags)];
    if (!setSweepNotes(this.db, input.sweep_id, { tags, notes: input.notes })) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return getSweep(this.db, input.sweep_id)!;
  }

  async deleteSweep(input: MethodInput<'deleteSweep'>): Promise<MethodOutput<'deleteSweep'>> {
    this.writable('delete a sweep');
    if (this.active.has(input.sweep_id)) throw new LabError('conflict', `sweep ${input.sweep_id} is running; cancel it first`);
    if (!getSweep(this.db, input.sweep_id)) throw new NotFoundError(`no sweep ${input.sweep_id}`);
    return { deleted: deleteSweep(this.db, input.sweep_id) };
  }

  async getRunTraces(input: MethodInput<'getRunTraces'>): Promise<MethodOutput<'getRunTraces'>> {
    const run = getRun(this.db, input.run_id);
    if (!run) throw new NotFoundError(`no run ${input.run_id}`);
    const max = input.max_points ?? 2000;
    const devices = devicesOfRun(this.db, input.run_id);
    const traces = devices.map((d) => {
      const s = runStream(this.db, input.run_id, d.id);
      const series = (field: ReadingField) => (s ? decimateField(this.db, s.stream, field, s.from, s.to, max) : { t: [], v: [] });
      return { device_id: d.device_key, power_w: series('power_w'), sm_clock_mhz: series('sm_clock_mhz'), temp_c: series('temp_c'), limit_w: series('limit_w') };
    });
    const rate = metricsOfRun(this.db, input.run_id, 'rate');
    return { run_id: input.run_id, devices: traces, throughput: decimateMinMax(rate.map((r) => r.t), rate.map((r) => r.value), max) };
  }

  async overlayTraces(input: MethodInput<'overlayTraces'>): Promise<MethodOutput<'overlayTraces'>> {
    return overlayTraces(this.db, { ...input, sources: input.sources.map((s) => Source.parse(s)) });
  }

  async restoreCaps(_input: MethodInput<'restoreCaps'>): Promise<MethodOutput<'restoreCaps'>> {
    this.writable('restore limits');
    return restoreDeadOwners(this.capContext);
  }

  async sampleDevices(input: MethodInput<'sampleDevices'>): Promise<MethodOutput<'sampleDevices'>> {
    const choice = input.backend ?? this.opts.backend ?? 'auto';
    if (!this.monitor || this.monitor.choice !== choice) {
      const old = this.monitor;
      this.monitor = null;
      await old?.lab.then((l) => l.backend.close(), () => undefined);
      const entry = { choice, lab: openLabBackend(choice, { env: this.env }) };
      this.monitor = entry;
      // A backend that failed to open is not kept: the next call (this backend or another) tries again.
      entry.lab.catch(() => {
        if (this.monitor === entry) this.monitor = null;
      });
    }
    const { backend } = await this.monitor.lab;
    const devices = await backend.listDevices();
    return { backend: backend.name, samples: await backend.sample(devices.map((d) => d.index)) };
  }

  async writePty(input: MethodInput<'writePty'>): Promise<MethodOutput<'writePty'>> {
    if (this.capPty && this.active.has(input.sweep_id)) {
      this.capPty.write(input.data);
      return { written: true };
    }
    const tune = this.tunes.get(input.sweep_id);
    if (tune) return { written: tune.write(input.data) };
    return { written: this.active.get(input.sweep_id)?.write(input.data) ?? false };
  }

  async bestCaps(input: MethodInput<'bestCaps'>): Promise<MethodOutput<'bestCaps'>> {
    return input.sweep_ids.map((id) => this.bestCapCache.of(this.db, id));
  }

  async analyzeSweep(input: MethodInput<'analyzeSweep'>): Promise<MethodOutput<'analyzeSweep'>> {
    const { sweep_id, ...opts } = input;
    return analyzeStoredSweep(this.db, sweep_id, { ...opts, overhead_w: opts.overhead_w ?? null }).result;
  }

  async about(_input: MethodInput<'about'>): Promise<MethodOutput<'about'>> {
    return { version: VERSION, commit: buildCommit(), data_dir: dataDir(this.env), db_path: resolve(this.opts.dbPath), host: this.host, node: process.versions.node };
  }

  async analyzeSources(input: MethodInput<'analyzeSources'>): Promise<MethodOutput<'analyzeSources'>> {
    const { sources, name, tariff, ...opts } = input;
    return withCost(analyzeSweep(loadSources(this.db, sources.map((s) => Source.parse(s)), { name }), { ...opts, overhead_w: opts.overhead_w ?? null }), tariff);
  }

  async energyInRange(input: MethodInput<'energyInRange'>): Promise<MethodOutput<'energyInRange'>> {
    if (input.dataset_id !== undefined) return datasetEnergy(this.db, input.dataset_id, input.from, input.to, input.device_index);
    return energyInRange(this.db, input.from, input.to, input.device_index);
  }

  /** A dataset's segments with their energy and the sweep analysis of those that carry a cap and units. */
  async analyzeDataset(input: MethodInput<'analyzeDataset'>): Promise<MethodOutput<'analyzeDataset'>> {
    const { dataset_id, ...opts } = input;
    return analyzeDataset(this.db, dataset_id, { ...opts, overhead_w: opts.overhead_w ?? null });
  }

  /** Imports files or directory trees on this machine as one dataset (`caplab import`). */
  importPaths(paths: readonly string[], opts: ImportOptions): Promise<ImportOutcome> {
    this.writable('import');
    return importPaths(this.db, paths, opts);
  }

  async listDatasets(_input: MethodInput<'listDatasets'>): Promise<MethodOutput<'listDatasets'>> {
    return datasetRecords(this.db);
  }

  async getDataset(input: MethodInput<'getDataset'>): Promise<MethodOutput<'getDataset'>> {
    const d = datasetRecord(this.db, input.dataset_id);
    if (!d) throw new DatasetError(`no dataset ${input.dataset_id} in this database`, 'not_found');
    return d;
  }

  async deleteDataset(input: MethodInput<'deleteDataset'>): Promise<MethodOutput<'deleteDataset'>> {
    this.writable('delete a dataset');
    return { deleted: removeDataset(this.db, input.dataset_id) };
  }

  async importDataset(input: MethodInput<'importDataset'>): Promise<MethodOutput<'importDataset'>> {
    this.writable('import');
    try {
      return await importDataset(this.db, input, (p) =>
        this.emit('import.progress', { import_id: input.import_id, file: p.file, files_done: p.files_done, files_total: p.files_total, fraction: p.bytes_total ? p.bytes_done / p.bytes_total : 1, samples: p.samples }),
      );
    } catch (e) {
      // The page picks a format where the CLI names --format: the call says what it takes.
      if (e instanceof ImportError && e.need === 'format') throw new DatasetError(`cannot import ${e.file}: no importer recognises this file; choose its format (one of ${ImportFormat.options.join(', ')})`);
      if (e instanceof ImportError) throw new DatasetError(`cannot import ${e.message}`);
      throw e;
    }
  }

  /** Reads nothing into the store: the first rows of each file as the import would read them (no write lock). */
  async previewImport(input: MethodInput<'previewImport'>): Promise<MethodOutput<'previewImport'>> {
    return previewImport(input);
  }

  async getDatasetTrace(input: MethodInput<'getDatasetTrace'>): Promise<MethodOutput<'getDatasetTrace'>> {
    return datasetTrace(this.db, input);
  }

  async saveSegment(input: MethodInput<'saveSegment'>): Promise<MethodOutput<'saveSegment'>> {
    this.writable('save a segment');
    return saveSegment(this.db, input);
  }

  /** Submits a prepared job folder with sbatch and records the job (`caplab cluster submit`); returns the job id. */
  submitClusterJob(prepared: Prepared): Promise<string> {
    this.writable('submit a cluster job');
    return submitJob(this.db, prepared, { env: this.env });
  }

  /** A Slurm array task's sweep as its results file carries it (`caplab cluster task`): runs with per-GPU figures. */
  clusterTaskRuns(sweepId: number): TaskRun[] {
    return taskRuns(this.db, sweepId);
  }

  async listClusterJobs(_input: MethodInput<'listClusterJobs'>): Promise<MethodOutput<'listClusterJobs'>> {
    return clusterJobs(this.db);
  }

  async clusterStatus(input: MethodInput<'clusterStatus'>): Promise<MethodOutput<'clusterStatus'>> {
    return clusterStatus(this.db, input.job, { env: this.env });
  }

  async collectCluster(input: MethodInput<'collectCluster'>): Promise<MethodOutput<'collectCluster'>> {
    this.writable('collect a cluster job');
    return clusterCollect(this.db, input.job, { env: this.env });
  }

  async cancelCluster(input: MethodInput<'cancelCluster'>): Promise<MethodOutput<'cancelCluster'>> {
    return clusterCancel(this.db, input.job, { env: this.env }, input.wait === true);
  }

  async analyzeNodes(input: MethodInput<'analyzeNodes'>): Promise<MethodOutput<'analyzeNodes'>> {
    return analyzeSweepNodes(this.db, input.sweep_id);
  }

  /** The PDF printer of app exports: the one the app gave (Electron), else headless Chromium. */
  private async pdfPrinter(): Promise<PdfPrinter> {
    if (this.opts.printPdf) return this.opts.printPdf;
    const browser = await findBrowser(undefined, this.env);
    return (html, o) => printPdfWithChromium(browser, html, o);
  }

  async exportFile(input: MethodInput<'exportFile'>): Promise<MethodOutput<'exportFile'>> {
    return exportForApp(this.db, input, { printPdf: () => this.pdfPrinter(), progress: (format, done, total) => this.emit('export.progress', { format, done, total }) });
  }

  async listWorkloads(_input: MethodInput<'listWorkloads'>): Promise<MethodOutput<'listWorkloads'>> {
    return listWorkloadSummaries(this.env);
  }

  async listFacilityConfigs(_input: MethodInput<'listFacilityConfigs'>): Promise<MethodOutput<'listFacilityConfigs'>> {
    return listFacilityConfigs(this.env);
  }

  async runFacility(input: MethodInput<'runFacility'>, keepSeries = true): Promise<MethodOutput<'runFacility'>> {
    // One cancellable run at a time is what the page shows; a second run gets its own controller.
    const abort = new AbortController();
    this.facilityRuns.add(abort);
    try {
      return await runFacilityYaml(input, this.env, (done, total, label) => this.emit('facility.progress', { done, total, label }), {
        labDb: this.labDbFile(),
        signal: abort.signal,
        keep: keepSeries ? this.facilitySeriesKept : undefined,
      });
    } finally {
      this.facilityRuns.delete(abort);
    }
  }

  async facilitySeries(input: MethodInput<'facilitySeries'>): Promise<MethodOutput<'facilitySeries'>> {
    return this.facilitySeriesKept.slice(input);
  }

  /** Cancels the facility runs (and reports) in progress: they reject with "facility run cancelled". */
  async cancelFacility(_input: MethodInput<'cancelFacility'>): Promise<MethodOutput<'cancelFacility'>> {
    const n = this.facilityRuns.size;
    for (const a of this.facilityRuns) a.abort();
    return { cancelled: n };
  }

  async facilityReport(input: MethodInput<'facilityReport'>): Promise<MethodOutput<'facilityReport'>> {
    const { format, paper, author, ...run } = input;
    // The report's run does not replace the series the page is zoomed into.
    const result = await this.runFacility(run, false);
    return facilityReportFile(result, { format, paper: paper ?? 'a4', author, yaml: run.yaml }, () => this.pdfPrinter());
  }

  /** This engine's database file, where facility `run` / `segment` profiles are read (none for an in-memory one). */
  private labDbFile(): string | undefined {
    return this.opts.dbPath === ':memory:' ? undefined : this.opts.dbPath;
  }

  /**
   * A facility config file (`caplab facility`): what runFacility does, plus what only a local caller chooses (worker
   * threads, CSV folder). Progress goes to `onProgress` and streams as `facility.progress`.
   */
  /** The interconnection search of a facility config file (`caplab facility --host-search`), on this thread. */
  searchFacilityHostFile(file: string, opts: { scenario?: string; target: number; share: number }): HostSearchResult {
    return searchHostFile(file, opts, this.env, this.labDbFile());
  }

  async runFacilityFile(
    file: string,
    input: Omit<MethodInput<'runFacility'>, 'yaml' | 'base_dir'>,
    opts: { threads?: number; csvDir?: string; onProgress?: (done: number, total: number, label: string) => void } = {},
  ): Promise<MethodOutput<'runFacility'>> {
    return runFacilityFile(
      file,
      input,
      this.env,
      (done, total, label) => {
        opts.onProgress?.(done, total, label);
        this.emit('facility.progress', { done, total, label });
      },
      { threads: opts.threads, csvDir: opts.csvDir, labDb: this.labDbFile() },
    );
  }

  async close(): Promise<void> {
    await this.cancelAll();
    await this.monitor?.lab.then((l) => l.backend.close()).catch(() => undefined);
    this.db.close();
  }
}
