// Plot traces and table rows for the Facility page, pure (unit-tested without a DOM).
import type { PlotData } from 'plotly.js-strict-dist-min';
import type { FacilityLevel, FacilityResult } from '../../shared/facility';

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

export const SUMMARY_HEADERS = ['utilisation', 'mean MW', 'peak MW', 'p99 MW', 'total mean MW', 'ramp 1 min MW', 'ramp 1 h MW', 'energy GWh', 'cost', 't CO2', 'wait h', 'incomplete'];

const f = (v: number | null, d: number) => (v === null || !Number.isFinite(v) ? '–' : v.toFixed(d));

export function summaryRows(r: FacilityResult): SummaryRow[] {
  return r.scenarios.flatMap((s) =>
    s.levels.map((l) => ({
      scenario: s.name,
      target: pct(l.target_utilization),
      cells: [
        `${f(l.utilization * 100, 1)} %${l.replicas > 1 ? ` ± ${f(l.sd.utilization * 100, 1)}` : ''}`,
        `${f(l.mean_w / MW, 3)}${l.replicas > 1 ? ` ± ${f(l.sd.mean_w / MW, 3)}` : ''}`,
        `${f(l.peak_w / MW, 3)}${l.replicas > 1 ? ` ± ${f(l.sd.peak_w / MW, 3)}` : ''}`,
        f(l.p99_w / MW, 3),
        f(l.mean_total_w / MW, 3),
        f(l.ramp_1min_w === null ? null : l.ramp_1min_w / MW, 3),
        f(l.ramp_1h_w === null ? null : l.ramp_1h_w / MW, 3),
        f(l.energy_total_mwh / 1000, 2),
        `${f(l.cost / 1e6, 2)} M ${r.currency}`,
        f(l.carbon_t, 0),
        f(l.queue_wait_mean_h, 2),
        `${f(l.incomplete_fraction * 100, 2)} %`,
      ],
    })),
  );
}
