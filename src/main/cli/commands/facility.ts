import { readFileSync } from 'node:fs';
import { CliError, defineCommand, numberOpt, printJson, stringOpt, type CliArgs, type CliIO } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { progressBar, table } from '../format';
import type { FacilityResult } from '../../../shared/facility';
import { EVENT_HEADERS, eventCells, GRID_HEADERS, gridCells, levelCells, levelHeaders, mwOf, pctOf, targetOf } from '../../../shared/facility-format';
import type { WrittenFile } from '../../../shared/export';
import { renderFacilityReport } from '../../../core/report/facility';
import { checkWritable, ExportError, findBrowser, NoBrowserError, printPdfWithChromium, PrintError, writeReportFiles, type PdfPrinter, type ReportTargets } from '../../lab';
import { paperOf } from './report';

function progressPrinter(io: CliIO) {
  const tty = io.stderr.isTTY === true;
  let lastDraw = 0;
  return (done: number, total: number, label: string) => {
    if (!tty) return;
    if (done < total && Date.now() - lastDraw < 100) return;
    lastDraw = Date.now();
    const width = Math.max(10, Math.min(40, (io.stderr.columns ?? 80) - label.length - 10));
    io.stderr.write(`\r\x1b[2K${progressBar(done / total, width, label)}${done === total ? '\n' : ''}`);
  };
}

/** The JSON of `caplab facility --json`: plot series (the level's and its grid draw's) only with --series (they are large). */
function forJson(r: FacilityResult, series: boolean): unknown {
  if (series) return r;
  const strip = (l: FacilityResult['levels'][number]) => {
    const { series: _s, grid, ...rest } = l;
    if (!grid) return rest;
    const { series_w: _g, ...g } = grid;
    return { ...rest, grid: g };
  };
  return { ...r, scenarios: r.scenarios.map((s) => ({ ...s, levels: s.levels.map(strip) })), levels: r.levels.map(strip) };
}

interface ReportPlan {
  targets: ReportTargets;
  printer: PdfPrinter | null;
}

/** --html / --pdf: the paths checked and, for a PDF, the browser found; null when no report is asked for. */
async function reportTargets(args: CliArgs, io: CliIO): Promise<ReportPlan | null> {
  const html = stringOpt(args, 'html');
  const pdf = stringOpt(args, 'pdf');
  if (!html && !pdf) {
    for (const f of ['author', 'paper', 'title', 'browser'] as const) if (args.values[f] !== undefined) throw new CliError(`--${f} goes with --html FILE or --pdf FILE (the facility report)`);
    return null;
  }
  paperOf(args);
  try {
    for (const f of [html, pdf]) if (f) await checkWritable(f);
    if (!pdf) return { targets: { html }, printer: null };
    const browser = await findBrowser(stringOpt(args, 'browser'), io.env);
    return { targets: { html, pdf }, printer: (doc, o) => printPdfWithChromium(browser, doc, o) };
  } catch (e) {
    if (e instanceof ExportError || e instanceof NoBrowserError) throw new CliError(e.message);
    throw e;
  }
}

/** The facility report (src/core/report/facility.ts) of this run, written to the files asked for. */
async function writeFacilityReport(result: FacilityResult, file: string, plan: ReportPlan, args: CliArgs, io: CliIO): Promise<WrittenFile[]> {
  const title = stringOpt(args, 'title') ?? `${result.name}: facility power`;
  const html = renderFacilityReport({
    result,
    config_file: file,
    config_yaml: readFileSync(file, 'utf8'),
    title,
    author: stringOpt(args, 'author') ?? null,
    generated_at: new Date().toISOString(),
    paper: paperOf(args),
  });
  try {
    const written = await writeReportFiles(html, { paper: paperOf(args), footer: `CapLab facility report · ${title}`, source: `facility ${file}` }, plan.targets, plan.printer);
    for (const f of written) io.stderr.write(`caplab facility: wrote ${f.path} (${f.bytes} bytes)\n`);
    return written;
  } catch (e) {
    if (e instanceof ExportError || e instanceof PrintError) throw new CliError(e.message, 1);
    throw e;
  }
}

/** --host-search TARGET:SHARE: the largest node count the config's grid.limit_mw hosts (JSON or a table of the tries). */
async function runHostSearch(args: CliArgs, io: CliIO, file: string, spec: string, scenario: string | undefined): Promise<number> {
  const m = /^([\d.]+):([\d.]+)$/.exec(spec);
  const target = m ? Number(m[1]) : NaN;
  const share = m ? Number(m[2]) : NaN;
  if (!(target > 0 && target <= 1) || !(share >= 0 && share < 1)) throw new CliError('--host-search TARGET:SHARE: a target utilisation in (0, 1] and a share of work lost in [0, 1), e.g. 0.6:0.01');
  const engine = await openEngine(args, io, { readOnly: true, optionalDb: true });
  let r;
  try {
    r = engine.searchFacilityHostFile(file, { scenario, target, share });
  } finally {
    await engine.close();
  }
  if (args.values.json) {
    printJson(io, r);
    return 0;
  }
  io.stdout.write(
    `${file}: ${r.nodes === null ? 'no node count' : `${r.nodes} nodes`} under ${mwOf(r.limit_w)} MW at ${pctOf(target)} utilisation with at most ${pctOf(share, 2)} of the work lost (${r.tries.length} tries, ${r.elapsed_s.toFixed(1)} s)\n`,
  );
  io.stdout.write(
    table(
      ['nodes', 'work lost', 'h at limit', 'h over limit', 'grid peak MW'],
      r.tries.map((t) => [t.nodes, pctOf(t.work_lost_share, 3), t.hours_at_limit.toFixed(1), t.hours_over_limit.toFixed(1), mwOf(t.grid_peak_w)]),
    ) + '\n',
  );
  return 0;
}

export const facilityCommand = defineCommand({
  name: 'facility',
  summary: 'Scale measured node power profiles to a whole facility (training/colocation or inference site)',
  usage:
    'facility CONFIG.yaml [--json] [--csv OUT_DIR] [--scenario NAME] [--host-search TARGET:SHARE] [--replicas N] [--threads N] [--series] [--html FILE] [--pdf FILE] [--author NAME] [--paper a4|letter] [--title T] [--browser PATH] [--db FILE]',
  options: {
    ...dbOption,
    ...jsonOption,
    csv: { type: 'string' },
    scenario: { type: 'string' },
    'host-search': { type: 'string' },
    replicas: { type: 'string' },
    threads: { type: 'string' },
    series: { type: 'boolean' },
    html: { type: 'string' },
    pdf: { type: 'string' },
    author: { type: 'string' },
    paper: { type: 'string' },
    title: { type: 'string' },
    browser: { type: 'string' },
  },
  flags: {
    csv: { value: 'OUT_DIR', text: 'Also write replica 1 of each level as OUT_DIR/<scenario>_<NN>u_power.csv (NLR facility-profile format); the folder is created.', default: 'none', example: '--csv out/facility' },
    'host-search': { value: 'TARGET:SHARE', text: 'Instead of the levels: the largest node count a site under the config\'s grid.limit_mw can host at utilisation TARGET with at most SHARE of the work lost to the limit (caps and deferral), with every try (work lost, hours at and over the limit, grid peak).', default: 'off', example: '--host-search 0.6:0.01' },
    scenario: { value: 'NAME', text: 'Run only this scenario (and the one it takes its load from, same_load_as).', default: 'every scenario', example: '--scenario capped' },
    replicas: { value: 'N', text: 'Seeded replicas per level (1 to 64), overriding the config.', default: 'the config\'s replicas', example: '--replicas 8' },
    threads: { value: 'N', text: 'Worker threads; 0 runs everything on this thread.', default: 'CPU cores - 1, at least 1', example: '--threads 4' },
    series: { text: 'With --json: include the plot series of each level (large).', default: 'off' },
    html: { value: 'FILE', text: 'Write the facility report as HTML here (inline SVG charts; no browser needed).', default: 'none', example: '--html site.html' },
    pdf: { value: 'FILE', text: 'Write the facility report as PDF here (printed by headless Chromium).', default: 'none', example: '--pdf site.pdf' },
    author: { value: 'NAME', text: 'With --html/--pdf: author named on the report.', default: 'none', example: "--author 'A. Planner'" },
    paper: { value: 'SIZE', text: 'With --pdf: paper size, a4 or letter.', default: 'a4', example: '--paper letter' },
    title: { value: 'T', text: 'With --html/--pdf: title of the report.', default: 'the config\'s name', example: "--title 'Site B, 2027'" },
    browser: { value: 'PATH', text: 'With --pdf: the Chromium or Chrome to print with.', default: '$CAPLAB_BROWSER, else a system Chromium/Chrome, else Playwright\'s', example: '--browser /usr/bin/chromium' },
  },
  examples: ['caplab facility resources/facility/nlr-colocation.yaml', 'caplab facility resources/facility/nlr-inference.yaml --replicas 4 --csv out/facility --json', 'caplab facility resources/facility/nlr-colocation.yaml --pdf nlr-colocation.pdf'],
  async run(args, io) {
    const file = args.positionals[0];
    if (!file) throw new CliError('give a facility config: caplab facility resources/facility/nlr-colocation.yaml');
    const replicas = numberOpt(args, 'replicas');
    if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 1 || replicas > 64)) throw new CliError('--replicas must be a whole number from 1 to 64');
    const threads = numberOpt(args, 'threads');
    if (threads !== undefined && (!Number.isInteger(threads) || threads < 0)) throw new CliError('--threads must be a whole number >= 0 (0: no worker threads)');
    const only = stringOpt(args, 'scenario');
    const csvDir = stringOpt(args, 'csv');
    // The report's files and printer are checked before the simulation, which may take a minute.
    const hostSearch = stringOpt(args, 'host-search');
    if (hostSearch !== undefined) return runHostSearch(args, io, file, hostSearch, only);
    const report = await reportTargets(args, io);
    // Read-only: profiles may come from recorded runs and datasets; nothing is written to the lab database.
    const engine = await openEngine(args, io, { readOnly: true, optionalDb: true });
    let result: FacilityResult;
    try {
      result = await engine.runFacilityFile(file, { scenario: only, replicas }, { threads, csvDir, onProgress: progressPrinter(io) });
    } finally {
      await engine.close();
    }
    const written = report ? await writeFacilityReport(result, file, report, args, io) : [];
    if (args.values.json) {
      printJson(io, { ...(forJson(result, args.values.series === true) as object), ...(report ? { written } : {}) });
      return 0;
    }
    io.stdout.write(`${result.name}: ${result.nodes} nodes, ${result.horizon_days} days at ${result.step_s} s, ${result.levels[0]?.replicas ?? 1} replica(s); ${result.elapsed_s.toFixed(1)} s\n`);
    for (const s of result.scenarios) {
      io.stdout.write(`\n${s.name}\n`);
      io.stdout.write(table(['target', ...levelHeaders(result)], s.levels.map((l) => [targetOf(l), ...levelCells(result, l)])) + '\n');
      const withGrid = s.levels.filter((l) => l.grid);
      if (withGrid.length === 0) continue;
      io.stdout.write(`${s.name}: grid (replica 1; power above is after the response)\n`);
      io.stdout.write(table(['target', ...GRID_HEADERS], withGrid.map((l) => [targetOf(l), ...gridCells(l.grid!)])) + '\n');
      const events = withGrid.flatMap((l) => l.grid!.events.map((e) => [targetOf(l), ...eventCells(e, result.currency)]));
      if (events.length > 0) io.stdout.write(table(['target', ...EVENT_HEADERS], events) + '\n');
    }
    if (csvDir) io.stderr.write(`caplab facility: replica 1 (the first) of each level written to ${csvDir}/<scenario>_<NN>u_power.csv\n`);
    return 0;
  },
});
