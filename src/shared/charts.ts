// Chart specs: what each results chart shows (series, axes with units, CI bars, markers, bands), built straight
// from the analysis. Pure data: the app draws them with Plotly (renderer/lib/plotly-figure.ts), the report with
// inline SVG (core/report/svg.ts), so both show the same numbers.
import type { AnalysisGroup, CapPoint, Optimum, Stat } from './analysis';
import { capSeverity, FLAG_INFO, SELECTOR_ORDER, sortedFlags } from './analysis-view';
import { colorFor, seriesColor } from './format';

export type MarkerState = 'ok' | 'warn' | 'error';

export interface ChartPoint {
  x: number;
  y: number;
  /** Half width of the 95 % CI (error bar), null: none. */
  err: number | null;
  /** Text drawn beside the point (e.g. "300 W"), null: none. */
  label: string | null;
  state: MarkerState;
  /** Not counted in the best cap (drawn as a cross). */
  excluded: boolean;
  /** Hover / tooltip detail. */
  note: string | null;
}

export interface ChartSeries {
  name: string;
  /** line: joined points; points: markers only; bar: bars from zero; ring: a hollow highlight around points. */
  type: 'line' | 'points' | 'bar' | 'ring';
  axis: 'y' | 'y2';
  color: string;
  dashed: boolean;
  faded: boolean;
  legend: boolean;
  /** Draw as steps (a value holds until the next point), e.g. a best cap as the overhead grows. */
  step?: boolean;
  points: ChartPoint[];
}

export interface ChartAxis {
  label: string;
  unit: string;
  min: number | null;
  max: number | null;
  /** Include zero in the range. */
  zero: boolean;
  ticks: number[] | null;
}

/** A shaded x range (the caps indistinguishable from the best; a dataset's segments). */
export interface ChartBand {
  from: number;
  to: number;
  label: string;
  /**
   * A time window drawn over exactly [from, to] with its label at the top (adjacent windows alternate shades);
   * absent: a cap range, widened by half a marker on each side so the edge caps' markers sit inside it.
   */
  window?: boolean;
}

export interface ChartSpec {
  id: 'efficiency' | 'throughput' | 'pareto' | 'clocks' | 'sensitivity' | 'facility-power' | 'facility-ldc' | 'facility-scenarios' | 'facility-event' | 'dataset-trace';
  title: string;
  x: ChartAxis;
  y: ChartAxis;
  y2: ChartAxis | null;
  series: ChartSeries[];
  bands: ChartBand[];
  legend: boolean;
  caption: string;
}

/** One sweep's (or dataset's) group in a chart; the first input is the primary one. */
export interface ChartInput {
  name: string;
  group: AnalysisGroup;
}

/** "power cap (W)": an axis title with its unit. */
export function axisTitle(a: Pick<ChartAxis, 'label' | 'unit'>): string {
  return `${a.label} (${a.unit})`;
}

const axis = (label: string, unit: string, o: Partial<ChartAxis> = {}): ChartAxis => ({ label, unit, min: null, max: null, zero: false, ticks: null, ...o });
const CAP_AXIS = axis('power cap', 'W');
const unitsOf = (inputs: readonly ChartInput[]) => inputs[0]?.group.units ?? 'units';

function stateOf(c: CapPoint): MarkerState {
  const s = capSeverity(c);
  return s === 'error' || s === 'warn' ? s : 'ok';
}

function flagText(c: CapPoint): string {
  return c.flags.length ? sortedFlags(c.flags).map((f) => FLAG_INFO[f].label).join(', ') : 'no flags';
}

type StatPick = (c: CapPoint) => { counted: Stat; excluded: Stat | null };

/**
 * A per-cap statistic as a line with 95 % CI bars. A cap whose runs were all left out (flagged) is drawn as a cross
 * at its left-out runs' mean, off the line; caps without any figure are left out.
 */
function statSeries(caps: readonly CapPoint[], pick: StatPick, name: string, i: number): ChartSeries[] {
  const points: ChartPoint[] = [];
  const left: ChartPoint[] = [];
  for (const c of caps) {
    const { counted, excluded } = pick(c);
    if (counted.mean != null) points.push({ x: c.cap_w, y: counted.mean, err: counted.ci?.half_width ?? null, label: null, state: stateOf(c), excluded: !c.eligible, note: `n = ${c.n_usable} · ${flagText(c)}` });
    else if (excluded?.mean != null)
      left.push({ x: c.cap_w, y: excluded.mean, err: null, label: null, state: stateOf(c), excluded: true, note: `left out (${c.excluded_runs.map((r) => r.reason).join('; ') || 'excluded'}) · ${flagText(c)}` });
  }
  const line: ChartSeries = { name, type: 'line', axis: 'y', color: seriesColor(i), dashed: i > 0, faded: false, legend: true, points };
  // Off the line: a left-out cap is no part of the curve.
  return left.length ? [line, { name: `${name} left out`, type: 'points', axis: 'y', color: seriesColor(i), dashed: false, faded: false, legend: false, points: left }] : [line];
}

const efficiencyOf: StatPick = (c) => ({ counted: c.efficiency, excluded: c.excluded_efficiency ?? null });
const throughputOf: StatPick = (c) => ({ counted: c.throughput, excluded: c.excluded_throughput ?? null });

/**
 * An axis with an explicit range where the data alone would give a degenerate one (one point, or all points equal:
 * Plotly then spans 299-301 W, or -0.5..1): caps get +-max(50 W, 10 %), other values 0..1.25 x (or +-25 %).
 */
export function fitAxis(a: ChartAxis, values: readonly number[], kind: 'cap' | 'value'): ChartAxis {
  const v = values.filter(Number.isFinite);
  if (a.min != null || a.max != null || v.length === 0) return a;
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  if (hi - lo > 1e-9 * Math.max(1, Math.abs(hi))) return a;
  if (kind === 'cap') {
    const pad = Math.max(50, 0.1 * Math.abs(lo));
    return { ...a, min: lo - pad, max: hi + pad };
  }
  if (lo > 0) return { ...a, min: 0, max: hi * 1.25 };
  if (lo === 0) return { ...a, min: 0, max: 1 };
  return { ...a, min: lo * 1.25, max: hi * 0.75 };
}

const xsOf = (series: readonly ChartSeries[]) => series.flatMap((s) => s.points.map((p) => p.x));
const ysOf = (series: readonly ChartSeries[]) => series.flatMap((s) => s.points.flatMap((p) => (p.err ? [p.y - p.err, p.y + p.err] : [p.y])));

function bandOf(o: Optimum | null): ChartBand[] {
  if (!o?.range_w || o.range_w[0] === o.range_w[1]) return [];
  return [{ from: o.range_w[0], to: o.range_w[1], label: 'may be the best (within the margin, or too few repetitions to tell)' }];
}

/** Efficiency vs cap with 95 % CI bars; the primary input's best cap ringed and its indistinguishable range shaded. */
export function efficiencyChart(inputs: readonly ChartInput[]): ChartSpec {
  const units = unitsOf(inputs);
  const series = inputs.flatMap((x, i) => statSeries(x.group.caps, efficiencyOf, x.name, i));
  const primary = inputs[0]?.group;
  const best = primary?.optima['max-efficiency'] ?? null;
  const bc = best?.cap_w != null ? primary!.caps.find((c) => c.cap_w === best.cap_w && c.efficiency.mean != null) : undefined;
  if (bc) {
    series.push({ name: 'best cap', type: 'ring', axis: 'y', color: '#edc948', dashed: false, faded: false, legend: false, points: [{ x: bc.cap_w, y: bc.efficiency.mean!, err: null, label: null, state: 'ok', excluded: false, note: null }] });
  }
  const withCi = primary?.caps.filter((c) => c.efficiency.ci != null).length ?? 0;
  return {
    id: 'efficiency',
    title: 'Efficiency vs cap',
    x: fitAxis(CAP_AXIS, xsOf(series), 'cap'),
    y: fitAxis(axis(`${units} per joule`, `${units}/J, node`), ysOf(series), 'value'),
    y2: null,
    series,
    bands: bandOf(best),
    legend: inputs.length > 1,
    caption: `Bars: 95 % CI over repetitions (${withCi} of ${primary?.caps.length ?? 0} caps have one). Shaded: caps indistinguishable from the best. Orange: warning, red: problem, cross: excluded from the best cap (where all its runs were left out, at their mean).${primary?.energy_basis ? ` ${units}/J counts ${primary.energy_basis}.` : ''}`,
  };
}

/** Throughput per GPU vs cap with 95 % CI bars. */
export function throughputChart(inputs: readonly ChartInput[]): ChartSpec {
  const units = unitsOf(inputs);
  const series = inputs.flatMap((x, i) => statSeries(x.group.caps, throughputOf, x.name, i));
  return {
    id: 'throughput',
    title: 'Throughput vs cap',
    x: fitAxis(CAP_AXIS, xsOf(series), 'cap'),
    y: axis('throughput per GPU', `${units}/s`, { zero: true }),
    y2: null,
    series,
    bands: [],
    legend: inputs.length > 1,
    caption: 'Bars: 95 % CI over repetitions.',
  };
}

/** Throughput (x) vs efficiency (y), both better when larger; the engine's Pareto front as a line. */
export function paretoChart(inputs: readonly ChartInput[]): ChartSpec {
  const units = unitsOf(inputs);
  const pt = (p: { cap_w: number; throughput: number; efficiency: number }) => ({ x: p.throughput, y: p.efficiency, err: null, label: `${p.cap_w} W`, state: 'ok' as const, excluded: false, note: null });
  const series: ChartSeries[] = inputs.flatMap((x, i) => [
      { name: `${x.name} dominated`, type: 'points' as const, axis: 'y' as const, color: seriesColor(i), dashed: false, faded: true, legend: false, points: x.group.pareto.points.filter((p) => !p.on_front).map(pt) },
      { name: `${x.name} Pareto front`, type: 'line' as const, axis: 'y' as const, color: seriesColor(i), dashed: true, faded: false, legend: true, points: x.group.pareto.front.map(pt) },
    ]);
  return {
    id: 'pareto',
    title: 'Pareto: throughput vs efficiency',
    x: fitAxis(axis('throughput per GPU', `${units}/s`), xsOf(series), 'value'),
    y: fitAxis(axis(`${units} per joule`, `${units}/J, node`), ysOf(series), 'value'),
    y2: null,
    series,
    bands: [],
    legend: true,
    caption: 'Each point is a cap (mean over repetitions). The front: caps no other cap beats on both throughput and efficiency.',
  };
}

/** Mean SM clock in the window vs cap, and the share of time the power-cap throttle reason was set (right axis). */
export function clockChart(group: AnalysisGroup): ChartSpec {
  const thr = group.caps.filter((c) => c.clocks.power_cap_throttled_share != null);
  const clk = group.caps.filter((c) => c.clocks.sm_mhz != null);
  const p = (x: number, y: number, note: string): ChartPoint => ({ x, y, err: null, label: null, state: 'ok', excluded: false, note });
  return {
    id: 'clocks',
    title: 'Clocks and throttling vs cap',
    x: fitAxis(CAP_AXIS, [...thr, ...clk].map((c) => c.cap_w), 'cap'),
    y: axis('mean SM clock in window', 'MHz'),
    y2: axis('power-cap throttled', '% of window', { min: 0, max: 105, ticks: [0, 25, 50, 75, 100] }),
    series: [
      { name: 'power-cap throttle share', type: 'bar', axis: 'y2', color: '#f28e2b', dashed: false, faded: true, legend: true, points: thr.map((c) => p(c.cap_w, c.clocks.power_cap_throttled_share! * 100, 'throttled by the power cap')) },
      { name: 'SM clock', type: 'line', axis: 'y', color: '#59a14f', dashed: false, faded: false, legend: true, points: clk.map((c) => p(c.cap_w, c.clocks.sm_mhz!, 'mean SM clock')) },
    ],
    bands: [],
    legend: true,
    caption: 'Bars: share of the measurement window with the software power-cap throttle reason set.',
  };
}

/** Best cap per selector vs the node overhead (the sensitivity curve). */
export function sensitivityChart(group: AnalysisGroup): ChartSpec {
  const s = group.sensitivity;
  const series: ChartSeries[] = SELECTOR_ORDER.map((sel, i) => ({
      name: sel,
      type: 'line' as const,
      axis: 'y' as const,
      color: colorFor(i),
      dashed: i > 0,
      faded: false,
      legend: true,
      step: true,
      points: s.curve.filter((r) => r.best[sel] != null).map((r) => ({ x: r.overhead_w, y: r.best[sel]!, err: null, label: null, state: 'ok' as const, excluded: false, note: null })),
    }));
  const bests = ysOf(series);
  const caps = group.caps.map((c) => c.cap_w);
  // No best cap at any overhead: the grid's caps on the y axis, not Plotly's -1..4.
  const y = bests.length ? fitAxis(axis('best cap', 'W'), bests, 'cap') : caps.length ? axis('best cap', 'W', { min: Math.min(...caps) - 50, max: Math.max(...caps) + 50 }) : axis('best cap', 'W');
  return {
    id: 'sensitivity',
    title: 'Best cap vs node overhead',
    x: axis('node overhead', 'W', { min: s.from_w, max: s.to_w }),
    y,
    y2: null,
    series,
    bands: [],
    legend: true,
    caption: bests.length ? `Each selector's best cap as the node overhead added to GPU energy goes from ${s.from_w} to ${s.to_w} W.` : `No selector has a best cap at any node overhead from ${s.from_w} to ${s.to_w} W (see the cards for why).`,
  };
}
