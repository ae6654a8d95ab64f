// Plot traces and table rows for the Facility page, pure (unit-tested without a DOM).
import type { PlotData } from 'plotly.js-strict-dist-min';
import type { FacilityLevel, FacilityResult, FacilitySeriesSlice, GridEventResult } from '../../shared/facility';
import { levelCells, levelHeaders, targetOf } from '../../shared/facility-format';

const MW = 1e6;
const pct = (u: number) => `${Math.round(u * 100)} %`;

/** IT power of one level over time: replica 0 as a line inside the replicas' min-max band; total power if different. */
export function seriesTraces(l: FacilityLevel): Partial<PlotData>[] {
  const days = l.series.t_h.map((h) => h / 24);
  const traces: Partial<PlotData>[] = [
    { x: days, y: l.series.band_lo_w.map((w) => w / MW), type: 'scatter', mode: 'lines', line: { width: 0 }, hoverinfo: 'skip', showlegend: false, name: 'replica min' },
    {
      x: days,
      y: l.series.band_hi_w.map((w) => w / MW),
      type: 'scatter',
      mode: 'lines',
      fill: 'tonexty',
      fillcolor: 'rgba(88,166,255,0.4)',
      line: { width: 0 },
      name: `replica band (${l.replicas})`,
    },
    { x: days, y: l.series.it_w.map((w) => w / MW), type: 'scatter', mode: 'lines', line: { width: 1, color: '#58a6ff' }, name: 'IT power, replica 1' },
  ];
  if (l.series.total_w.some((w, i) => Math.abs(w - l.series.it_w[i]!) > 1)) {
    traces.push({ x: days, y: l.series.total_w.map((w) => w / MW), type: 'scatter', mode: 'lines', line: { width: 1, color: '#f0883e' }, name: 'total (overheads)' });
  }
  if (l.grid && l.grid.series_w.length === days.length) {
    traces.push({ x: days, y: l.grid.series_w.map((w) => w / MW), type: 'scatter', mode: 'lines', line: { width: 1, color: '#3fb950' }, name: 'grid draw (after storage)' });
  }
  return traces;
}

/**
 * A zoomed window at the engine's resolution (facilitySeries): replica 1's IT power, total power if different and
 * the grid draw, step by step (no replica band: the other replicas are kept only as the whole horizon's means).
 */
export function sliceTraces(z: FacilitySeriesSlice): Partial<PlotData>[] {
  const days = z.t_h.map((h) => h / 24);
  const line = (y: number[], name: string, color: string): Partial<PlotData> => ({ x: days, y: y.map((w) => w / MW), type: 'scatter', mode: 'lines', line: { width: 1, color }, name });
  const traces = [line(z.it_w, 'IT power, replica 1', '#58a6ff')];
  if (z.total_w.some((w, i) => Math.abs(w - z.it_w[i]!) > 1)) traces.push(line(z.total_w, 'total (overheads)', '#f0883e'));
  if (z.grid_w) traces.push(line(z.grid_w, 'grid draw (after storage)', '#3fb950'));
  return traces;
}

/** What one point of the plotted series is: a simulation step, or a mean over a bucket of steps. */
export function resolutionLabel(bucketS: number, stepS: number): string {
  const t = (s: number) => (s % 60 === 0 ? `${s / 60} min` : `${s} s`);
  return bucketS <= stepS ? `every ${t(stepS)} step` : `means per ${t(bucketS)}`;
}

/** Event windows (from the due time to the end) as shaded rectangles on the day axis of the power series. */
export function eventShapes(l: FacilityLevel): Record<string, unknown>[] {
  return (l.grid?.events ?? []).map((e) => ({ type: 'rect', xref: 'x', yref: 'paper', x0: e.due_h / 24, x1: e.end_h / 24, y0: 0, y1: 1, fillcolor: 'rgba(248,81,73,0.15)', line: { width: 0 } }));
}

/** One event's reduction below its baseline: requested (dashed) and delivered, in MW against hours. */
export function eventTraces(e: GridEventResult): Partial<PlotData>[] {
  return [
    { x: e.series.t_h, y: e.series.requested_w.map((w) => w / MW), type: 'scatter', mode: 'lines', line: { dash: 'dash', color: '#f0883e' }, name: 'requested' },
    { x: e.series.t_h, y: e.series.delivered_w.map((w) => w / MW), type: 'scatter', mode: 'lines', line: { color: '#58a6ff' }, name: 'delivered' },
  ];
}

export type Zoom = 'all' | 'week' | 'day';
const ZOOM_DAYS: Record<Exclude<Zoom, 'all'>, number> = { week: 7, day: 1 };

/**
 * The day-axis range of a zoom: the whole horizon, or a week or a day starting `from` (days), kept inside it. The
 * default start is the first event's window, else the day of the series' peak.
 */
export function zoomRange(l: FacilityLevel, zoom: Zoom, from?: number): [number, number] | null {
  const days = l.series.t_h.map((h) => h / 24);
  const horizon = (days[days.length - 1] ?? 0) + (days[1] ?? 0);
  if (zoom === 'all' || horizon <= 0) return null;
  const span = Math.min(ZOOM_DAYS[zoom], horizon);
  const e = l.grid?.events[0];
  let peak = 0;
  l.series.it_w.forEach((w, i) => {
    if (w > l.series.it_w[peak]!) peak = i;
  });
  const start = from ?? (e ? Math.floor(e.due_h / 24) : Math.floor(days[peak] ?? 0));
  const x0 = Math.max(0, Math.min(horizon - span, start));
  return [x0, x0 + span];
}

/** Load-duration curves of one scenario, one line per target utilisation. */
export function ldcTraces(levels: readonly FacilityLevel[]): Partial<PlotData>[] {
  return levels.map((l) => ({
    x: l.ldc_w.map((_, i) => i),
    y: l.ldc_w.map((w) => w / MW),
    type: 'scatter',
    mode: 'lines',
    name: pct(l.target_utilization),
  }));
}

/** Mean and peak per scenario at each target, as grouped bars (scenario comparison). */
export function comparisonTraces(r: FacilityResult): Partial<PlotData>[] {
  return r.scenarios.flatMap((s) => [
    { x: s.levels.map((l) => pct(l.target_utilization)), y: s.levels.map((l) => l.mean_w / MW), type: 'bar', name: `${s.name} mean` },
    { x: s.levels.map((l) => pct(l.target_utilization)), y: s.levels.map((l) => l.peak_w / MW), type: 'bar', name: `${s.name} peak`, opacity: 0.55 },
  ]) as Partial<PlotData>[];
}

export interface SummaryRow {
  scenario: string;
  target: string;
  cells: string[];
}

/** The summary table's columns: the same units and formats as the CLI table and the report (shared/facility-format). */
export function summaryHeaders(r: Pick<FacilityResult, 'mode'>): string[] {
  return levelHeaders(r);
}

export function summaryRows(r: FacilityResult): SummaryRow[] {
  return r.scenarios.flatMap((s) => s.levels.map((l) => ({ scenario: s.name, target: targetOf(l), cells: levelCells(r, l) })));
}
