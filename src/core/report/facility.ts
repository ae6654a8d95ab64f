// The facility planner's report (`caplab facility CONFIG.yaml --html/--pdf`): the site, every scenario and target's
// figures, the power series with the replicas' band, load-duration curves, scenarios side by side and the config
// with its assumptions. One self-contained HTML document in the lab report's style; every number is the run's.
import type { ChartAxis, ChartPoint, ChartSeries, ChartSpec } from '../../shared/charts';
import { colorFor } from '../../shared/format';
import type { FacilityLevel, FacilityResult, GridEventResult } from '../../shared/facility';
import { EVENT_HEADERS, eventCells, GRID_HEADERS, gridCells, levelCells, levelHeaders, mwOf } from '../../shared/facility-format';
import { escapeHtml as h } from './html-escape';
import { num, pct } from './format';
import type { Paper } from './model';
import { figure, table } from './sections';
import { reportDate, reportDocument, type Section } from './html';

export interface FacilityReportInput {
  result: FacilityResult;
  /** The config file as given (its comments say which values are assumed). */
  config_file: string;
  config_yaml: string;
  title: string;
  author: string | null;
  /** ISO-8601 time the report was made. */
  generated_at: string;
  paper: Paper;
}

const MW = (w: number | null, digits = 4) => (w === null ? null : num(w / 1e6, digits));
const target = (l: FacilityLevel) => `${Math.round(l.target_utilization * 100)} %`;
const axis = (label: string, unit: string, zero = false): ChartAxis => ({ label, unit, min: null, max: null, zero, ticks: null });
const point = (x: number, y: number): ChartPoint => ({ x, y, err: null, label: null, state: 'ok', excluded: false, note: null });
const line = (name: string, color: string, xs: number[], ys: number[], extra: Partial<ChartSeries> = {}): ChartSeries => ({
  name,
  type: 'line',
  axis: 'y',
  color,
  dashed: false,
  faded: false,
  legend: true,
  points: xs.map((x, i) => point(x, ys[i]!)),
  ...extra,
});

/** Replica 1's IT power (and the total when overheads change it) between the replicas' min and max. */
export function powerChart(scenario: string, l: FacilityLevel): ChartSpec {
  const s = l.series;
  const days = s.t_h.map((t) => t / 24);
  const mw = (v: number[]) => v.map((w) => w / 1e6);
  const series = [
    line('replica min', '#9aa5b1', days, mw(s.band_lo_w), { faded: true, dashed: true, legend: l.replicas > 1 }),
    line('replica max', '#9aa5b1', days, mw(s.band_hi_w), { faded: true, dashed: true, legend: l.replicas > 1 }),
    line('IT power, replica 1', colorFor(0), days, mw(s.it_w)),
  ];
  if (s.total_w.some((w, i) => Math.abs(w - s.it_w[i]!) > 1e-6)) series.push(line('total (overheads)', colorFor(3), days, mw(s.total_w)));
  return {
    id: 'facility-power',
    title: `${scenario}, ${target(l)}: facility power`,
    x: axis('time', 'days'),
    y: axis('power', 'MW', true),
    y2: null,
    series: l.replicas > 1 ? series : series.slice(2),
    bands: [],
    legend: true,
    caption: `Bucket means of replica 1; dashed: the min and max over ${l.replicas} replica(s) in each bucket. Mean ${MW(l.mean_w)} MW, peak ${MW(l.peak_w)} MW, p99 ${MW(l.p99_w)} MW.`,
  };
}

/** The load-duration curve of IT power per target: power exceeded for each share of the time. */
export function ldcChart(scenario: string, levels: FacilityLevel[]): ChartSpec {
  return {
    id: 'facility-ldc',
    title: `${scenario}: load-duration curve (IT)`,
    x: axis('time exceeded', '%'),
    y: axis('IT power', 'MW', true),
    y2: null,
    series: levels.map((l, i) => line(target(l), colorFor(i), l.ldc_w.map((_, k) => k), l.ldc_w.map((w) => w / 1e6))),
    bands: [],
    legend: true,
    caption: 'IT power exceeded for 0-100 % of the time, replica means. A flat top is a site saturating at its busiest hours.',
  };
}

/** Mean and peak IT power of every scenario against the target utilisation. */
export function scenariosChart(r: FacilityResult): ChartSpec {
  const series = r.scenarios.flatMap((s, i) => [
    line(`${s.name} mean`, colorFor(i), s.levels.map((l) => l.target_utilization * 100), s.levels.map((l) => l.mean_w / 1e6)),
    line(`${s.name} peak`, colorFor(i), s.levels.map((l) => l.target_utilization * 100), s.levels.map((l) => l.peak_w / 1e6), { dashed: true }),
  ]);
  return {
    id: 'facility-scenarios',
    title: 'Scenarios side by side: mean and peak IT power',
    x: axis('target utilisation', '%'),
    y: axis('IT power', 'MW', true),
    y2: null,
    series,
    bands: [],
    legend: r.scenarios.length <= 3,
    caption: `Solid: mean; dashed: peak. Scenarios: ${r.scenarios.map((s) => s.name).join(', ')}.`,
  };
}

/** One event: the reduction requested and delivered (against the pre-event baseline) from before it to its rebound. */
export function eventChart(scenario: string, l: FacilityLevel, e: GridEventResult, i: number): ChartSpec {
  const s = e.series;
  const mw = (v: number[]) => v.map((w) => w / 1e6);
  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  return {
    id: 'facility-event',
    title: `${scenario}, ${target(l)}: ${e.name}`,
    x: axis('time', 'h'),
    y: axis('reduction below the baseline', 'MW'),
    y2: null,
    series: [line('requested', colorFor(3), s.t_h, mw(s.requested_w), { dashed: true }), line('delivered', colorFor(i % 2), s.t_h, mw(s.delivered_w))],
    bands: [],
    legend: true,
    caption: `Baseline ${MW(e.baseline_w)} MW (the hour before the request at ${num(e.request_h, 4)} h); requested ${MW(e.requested_w)} MW from ${num(e.due_h, 4)} h to ${num(e.end_h, 4)} h, met in ${pct(e.met_share, 0)} of its steps. Work lost ${num(sum(e.work_lost_node_h), 4)} node-h, deferred ${num(sum(e.deferred_node_h), 4)} node-h; below zero after the event: the rebound (deferred work and recharging).`,
  };
}

/** The grid section of a scenario: the response per level, every event, and each event's requested vs delivered. */
function gridBody(r: FacilityResult, name: string, levels: FacilityLevel[]): string {
  const withGrid = levels.filter((l) => l.grid);
  // Cells are written as HTML: escaped here (event and job type names come from the config).
  const rows = table(['target', ...GRID_HEADERS], withGrid.map((l) => [target(l), ...gridCells(l.grid!)].map(h)));
  const events = withGrid.flatMap((l) => l.grid!.events.map((e) => [target(l), ...eventCells(e, r.currency)].map(h)));
  const charts = withGrid.flatMap((l) => l.grid!.events.map((e, i) => figure(eventChart(name, l, e, i))));
  return `<p>Replica 1. The site keeps its grid draw under each step's limit (the interconnection limit, or an event's) with, in order, the battery, the generator, lower GPU caps chosen per job type from the measured at_caps curves (least work lost per MW shed) and pausing the flexible share of running jobs, whose work runs after the event on free nodes (the rebound). Power figures above are after the response; cost is on the grid draw.</p>${rows}${events.length ? table(['target', ...EVENT_HEADERS], events) : ''}${charts.join('')}`;
}

/** A scenario's levels in the units of the CLI table and the page (shared/facility-format), plus total peak and wait max. */
function levelsTable(r: FacilityResult, levels: FacilityLevel[]): string {
  return table(
    ['target', ...levelHeaders(r), 'total peak MW', 'wait max h'],
    levels.map((l) => [target(l), ...levelCells(r, l), mwOf(l.peak_total_w), num(l.queue_wait_max_h, 3)].map(h)),
  );
}

function sections(input: FacilityReportInput): Section[] {
  const r = input.result;
  const reps = r.levels[0]?.replicas ?? 1;
  const site = table(
    ['site', 'mode', 'nodes', 'horizon', 'step', 'seed', 'replicas', 'scenarios'],
    [[h(r.name), r.mode, r.nodes, `${num(r.horizon_days)} days`, `${num(r.step_s)} s`, r.seed, reps, h(r.scenarios.map((s) => s.name).join(', '))]],
  );
  const method =
    r.mode === 'training'
      ? 'Jobs arrive (Poisson, shaped by hour of day, weekday and month), draw a type, a node count and a duration, and are allocated nodes from a fixed pool; each running job replays its measured per-node power profile and free nodes draw idle power. For each target the daily job count is searched until the mean node utilisation is within 0.25 percentage points of it.'
      : 'Each service runs K = min(ceil(rate / rate_max), N_max) instances for its request rate; each instance serves rate / K up to rate_max and its nodes draw the measured power at that rate. Requests beyond K x rate_max are counted as incomplete. For each target the demand multiplier is searched until the mean node utilisation is within 0.25 percentage points of it.';
  return [
    {
      id: 'site',
      title: 'The site and the method',
      body: `${site}<p>${h(method)} Figures are means over ${reps} replica(s) with different seeds (± their standard deviation); replica 1 is drawn inside the replicas' band. Ramps are the largest change of IT power over 1 min and 1 h in either direction. Method and limits: docs/facility.md.</p>`,
    },
    ...r.scenarios.map((s, i) => ({
      id: `scenario-${i + 1}`,
      title: `Scenario ${s.name}`,
      body: `${levelsTable(r, s.levels)}${figure(ldcChart(s.name, s.levels))}${s.levels.map((l) => figure(powerChart(s.name, l))).join('')}`,
    })),
    ...r.scenarios.flatMap((s, i) => (s.levels.some((l) => l.grid) ? [{ id: `grid-${i + 1}`, title: `Grid: ${s.name}`, body: gridBody(r, s.name, s.levels) }] : [])),
    ...(r.scenarios.length > 1 ? [{ id: 'scenarios', title: 'Scenarios side by side', body: figure(scenariosChart(r)) }] : []),
    { id: 'config', title: 'Appendix: the configuration and its assumptions', body: `<p>${h(input.config_file)}</p><pre class="plan">${h(input.config_yaml)}</pre>`, appendix: true },
  ];
}

/** The facility report as a complete HTML document. */
export function renderFacilityReport(input: FacilityReportInput): string {
  return reportDocument({
    title: input.title,
    paper: input.paper,
    kicker: 'CapLab facility report',
    facts: [
      ['date', reportDate(input.generated_at)],
      ['author', input.author ?? '—'],
      ['config', input.config_file],
      ['paper', input.paper === 'a4' ? 'A4' : 'Letter'],
    ],
    sections: sections(input),
  });
}
