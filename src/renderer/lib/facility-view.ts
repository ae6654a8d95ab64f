// Plot traces and table rows for the Facility page, pure (unit-tested without a DOM).
import type { PlotData } from 'plotly.js-strict-dist-min';
import type { FacilityLevel, FacilityResult } from '../../shared/facility';
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
  return traces;
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
