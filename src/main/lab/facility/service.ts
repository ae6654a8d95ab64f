// The facility slice (src/shared/api/facility.ts): facility configs run as YAML (the page) or as files (`caplab
// facility`, runFacilityFile and searchFacilityHostFile), cancelled, zoomed into and reported.
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import type { HostSearchResult } from '../../../core/facility/host-search';
import type { EngineContext } from '../engine-context';
import type { PdfPrinter } from '../report/write';
import { FacilitySeriesStore, listFacilityConfigs, runFacilityFile, runFacilityYaml, searchHostFile } from './engine-facility';
import { facilityReportFile } from './report-file';

export class FacilityService implements SliceApi<'facility'> {
  /** Facility runs in progress, each cancellable (cancelFacility). */
  private runs = new Set<AbortController>();
  /** The last page run's full-resolution series (facilitySeries: the Facility page's zoom). */
  private seriesKept = new FacilitySeriesStore();

  constructor(
    private readonly ctx: EngineContext,
    /** The PDF printer of facility reports: the app's (Electron) or a headless Chromium found on demand. */
    private readonly printPdf: () => Promise<PdfPrinter>,
  ) {}

  async listFacilityConfigs(_input: MethodInput<'listFacilityConfigs'>): Promise<MethodOutput<'listFacilityConfigs'>> {
    return listFacilityConfigs(this.ctx.env);
  }

  async runFacility(input: MethodInput<'runFacility'>, keepSeries = true): Promise<MethodOutput<'runFacility'>> {
    // One cancellable run at a time is what the page shows; a second run gets its own controller.
    const abort = new AbortController();
    this.runs.add(abort);
    try {
      return await runFacilityYaml(input, this.ctx.env, (done, total, label) => this.ctx.emit('facility.progress', { done, total, label }), {
        labDb: this.labDbFile(),
        signal: abort.signal,
        keep: keepSeries ? this.seriesKept : undefined,
      });
    } finally {
      this.runs.delete(abort);
    }
  }

  async facilitySeries(input: MethodInput<'facilitySeries'>): Promise<MethodOutput<'facilitySeries'>> {
    return this.seriesKept.slice(input);
  }

  /** Cancels the facility runs (and reports) in progress: they reject with "facility run cancelled". */
  async cancelFacility(_input: MethodInput<'cancelFacility'>): Promise<MethodOutput<'cancelFacility'>> {
    const n = this.runs.size;
    for (const a of this.runs) a.abort();
    return { cancelled: n };
  }

  async facilityReport(input: MethodInput<'facilityReport'>): Promise<MethodOutput<'facilityReport'>> {
    const { format, paper, author, ...run } = input;
    // The report's run does not replace the series the page is zoomed into.
    const result = await this.runFacility(run, false);
    return facilityReportFile(result, { format, paper: paper ?? 'a4', author, yaml: run.yaml }, this.printPdf);
  }

  /** The interconnection search of a facility config file (`caplab facility --host-search`), on this thread. */
  searchFacilityHostFile(file: string, opts: { scenario?: string; target: number; share: number }): HostSearchResult {
    return searchHostFile(file, opts, this.ctx.env, this.labDbFile());
  }

  /**
   * A facility config file (`caplab facility`): what runFacility does, plus what only a local caller chooses (worker
   * threads, CSV folder). Progress goes to `onProgress` and streams as `facility.progress`.
   */
  async runFacilityFile(
    file: string,
    input: Omit<MethodInput<'runFacility'>, 'yaml' | 'base_dir'>,
    opts: { threads?: number; csvDir?: string; onProgress?: (done: number, total: number, label: string) => void } = {},
  ): Promise<MethodOutput<'runFacility'>> {
    return runFacilityFile(
      file,
      input,
      this.ctx.env,
      (done, total, label) => {
        opts.onProgress?.(done, total, label);
        this.ctx.emit('facility.progress', { done, total, label });
      },
      { threads: opts.threads, csvDir: opts.csvDir, labDb: this.labDbFile() },
    );
  }

  /** This engine's database file, where facility `run` / `segment` profiles are read (none for an in-memory one). */
  private labDbFile(): string | undefined {
    return this.ctx.dbPath === ':memory:' ? undefined : this.ctx.dbPath;
  }
}
