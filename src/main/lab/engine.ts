import { hostname } from 'node:os';
import { describeMigration, openDb, type Db } from './store/db';
import { markInterruptedSweeps } from './store/sweeps';
import { isAlive } from './runner/process-tree';
import { LabError } from '../../shared/errors';
import { methodsOf, sliceNames, type ApiBySlice, type EventArgs, type LabApi, type LabEventListener, type MethodName, type MethodOutput } from '../../shared/api';
import type { BackendChoice } from '../../shared/device';
import type { SweepStatus } from '../../shared/records';
import type { PtyHandler } from './gpu/lab-backend';
import type { PdfPrinter } from './report/write';
import { findBrowser, printPdfWithChromium } from './exporters/chromium';
import type { EngineContext } from './engine-context';
import { Running } from './running';
import { SystemService } from './system/service';
import { DevicesService } from './devices/service';
import { PlansService } from './sweep/plan-service';
import { SweepsService } from './sweep/service';
import { TuneService } from './tune/service';
import { AnalysisService } from './analysis/service';
import { DatasetsService } from './datasets/service';
import { ClusterService } from './cluster/service';
import { ExportsService, FileOutputs } from './exporters/service';
import { FacilityService } from './facility/service';

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

/**
 * One service per contract slice, each over the same context. `satisfies` makes a slice without its service, or a
 * method its service lacks, a compile error; the concrete types stay for the calls beyond the contract.
 */
export function buildServices(ctx: EngineContext, printPdf: () => Promise<PdfPrinter>) {
  return {
    system: new SystemService(ctx),
    devices: new DevicesService(ctx),
    plans: new PlansService(ctx),
    sweeps: new SweepsService(ctx),
    tune: new TuneService(ctx),
    analysis: new AnalysisService(ctx),
    datasets: new DatasetsService(ctx),
    cluster: new ClusterService(ctx),
    exports: new ExportsService(ctx, printPdf),
    facility: new FacilityService(ctx, printPdf),
  } satisfies ApiBySlice;
}

type Services = ReturnType<typeof buildServices>;

/** The contract served: each method bound to the service of the slice that declares it. */
function contractOf(services: ApiBySlice): LabApi {
  const api: Partial<Record<MethodName, unknown>> = {};
  for (const slice of sliceNames) {
    // The table's type checked each service against its slice; this only copies the methods it declares.
    const service = services[slice] as unknown as Record<MethodName, (input: unknown) => Promise<unknown>>;
    for (const m of methodsOf(slice)) api[m] = service[m].bind(service);
  }
  return api as LabApi;
}

/** Carries the contract's methods as its own properties, from the table the engine built. */
const Contract = class {
  constructor(api: LabApi) {
    Object.assign(this, api);
  }
} as new (api: LabApi) => LabApi;

/** The events of one engine, handed to every subscriber. */
class EventBus {
  private listeners = new Set<LabEventListener>();

  subscribe(cb: LabEventListener): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  readonly emit = (...e: EventArgs): void => {
    for (const l of this.listeners) {
      try {
        l(...e);
      } catch {
        // A listener's failure must not stop a sweep.
      }
    }
  };
}

/** The PDF printer of app exports and facility reports: the one the app gave (Electron), else headless Chromium. */
function pdfPrinterOf(given: PdfPrinter | undefined, env: NodeJS.ProcessEnv): () => Promise<PdfPrinter> {
  return async () => {
    if (given) return given;
    const browser = await findBrowser(undefined, env);
    return (html, o) => printPdfWithChromium(browser, html, o);
  };
}

/**
 * The engine behind every face: the contract's methods over one lab database, each served by its slice's service
 * (buildServices), plus the few calls only the faces running here make. Plain Node, no Electron.
 */
export class Engine extends Contract implements LabApi {
  readonly host: string;
  readonly db: Db;
  /** What `open` restored from an earlier, killed sweep. */
  restoredAtOpen: MethodOutput<'restoreCaps'> = [];
  /** Exports and reports written to files the caller names (the CLI's export and report). */
  readonly files: FileOutputs;
  readonly beginSweep: SweepsService['beginSweep'];
  readonly beginTune: TuneService['beginTune'];
  readonly checkPlan: PlansService['checkPlan'];
  readonly validateChecked: PlansService['validateChecked'];
  readonly importPaths: DatasetsService['importPaths'];
  readonly submitClusterJob: ClusterService['submitClusterJob'];
  readonly clusterTaskRuns: ClusterService['clusterTaskRuns'];
  readonly runFacilityFile: FacilityService['runFacilityFile'];
  readonly searchFacilityHostFile: FacilityService['searchFacilityHostFile'];

  private constructor(
    private readonly ctx: EngineContext,
    private readonly services: Services,
    private readonly bus: EventBus,
  ) {
    super(contractOf(services));
    this.host = ctx.host;
    this.db = ctx.db;
    this.files = new FileOutputs(ctx.db, ctx.env);
    const { sweeps, tune, plans, datasets, cluster, facility } = services;
    this.beginSweep = sweeps.beginSweep.bind(sweeps);
    this.beginTune = tune.beginTune.bind(tune);
    this.checkPlan = plans.checkPlan.bind(plans);
    this.validateChecked = plans.validateChecked.bind(plans);
    this.importPaths = datasets.importPaths.bind(datasets);
    this.submitClusterJob = cluster.submitClusterJob.bind(cluster);
    this.clusterTaskRuns = cluster.clusterTaskRuns.bind(cluster);
    this.runFacilityFile = facility.runFacilityFile.bind(facility);
    this.searchFacilityHostFile = facility.searchFacilityHostFile.bind(facility);
  }

  static async open(opts: EngineOptions): Promise<Engine> {
    const db = openDb(opts.dbPath, { readonly: opts.readOnly });
    const bus = new EventBus();
    const env = opts.env ?? process.env;
    const ctx: EngineContext = {
      db,
      dbPath: opts.dbPath,
      host: hostname(),
      env,
      backend: opts.backend,
      emit: bus.emit,
      writable: (what) => {
        if (opts.readOnly) throw new LabError('invalid', `cannot ${what}: this engine opened the database read-only`);
      },
      running: new Running(bus.emit, opts.onPty),
    };
    const engine = new Engine(ctx, buildServices(ctx, pdfPrinterOf(opts.printPdf, env)), bus);
    if (!opts.readOnly) markInterruptedSweeps(db, isAlive);
    if (opts.restoreOnOpen ?? false) engine.restoredAtOpen = await engine.restoreCaps({});
    return engine;
  }

  /** "migrated FILE from schema A -> B; the copy from before is at …" when opening migrated the database, else null. */
  migrationNote(): string | null {
    return describeMigration(this.ctx.dbPath, this.db);
  }

  subscribe(cb: LabEventListener): () => void {
    return this.bus.subscribe(cb);
  }

  /** Cancels every running sweep and waits until their limits are restored (SIGINT/SIGTERM, app quit). */
  cancelAll(): Promise<SweepStatus[]> {
    return this.ctx.running.cancelAll();
  }

  async close(): Promise<void> {
    await this.cancelAll();
    await this.services.devices.close();
    this.db.close();
  }
}
