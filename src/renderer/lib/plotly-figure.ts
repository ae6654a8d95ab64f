// Plotly figures for the results page and the chart cards, drawn from the shared chart specs (src/shared/charts.ts), which the PDF report
// draws as SVG: the app and the report show the same series, CI bars and markers.
import type { Layout, PlotData } from 'plotly.js-strict-dist-min';
import { axisTitle, type ChartAxis, type ChartSeries, type ChartSpec } from '../../shared/charts';

const STATE_COLOR = { error: '#e15759', warn: '#f28e2b' } as const;

function hover(s: ChartSeries): string {
  if (s.type === 'bar') return `%{x}: %{y:.0f}<extra>${s.name}</extra>`;
  const err = s.points.some((p) => p.err != null) ? ' ± %{error_y.array:.2g}' : '';
  return `%{x}: %{y:.4g}${err}<br>%{text}<extra>${s.name}</extra>`;
}

/**
 * A legend entry broken into lines of at most `max` characters at its " · " separators: Plotly never wraps one,
 * so a long "#3 · name · model · cancelled" ran past the chart's edge and compared sweeps read alike.
 */
export function legendName(name: string, max = 60): string {
  const lines: string[] = [];
  for (const part of name.split(' · ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 3 + part.length <= max) lines[last] += ` · ${part}`;
    else lines.push(last >= 0 ? `· ${part}` : part);
  }
  return lines.join('<br>');
}

function trace(s: ChartSeries): PlotData {
  const x = s.points.map((p) => p.x);
  const y = s.points.map((p) => p.y);
  const yaxis = s.axis === 'y2' ? 'y2' : undefined;
  if (s.type === 'bar') {
    return { type: 'bar', name: legendName(s.name), x, y, yaxis, marker: { color: s.faded ? `${s.color}59` : s.color }, width: x.map(() => 30), hovertemplate: hover(s), showlegend: s.legend };
  }
  if (s.type === 'ring') {
    return { type: 'scatter', mode: 'markers', name: s.name, x, y, marker: { color: 'rgba(0,0,0,0)', size: 20, line: { color: s.color, width: 3 } }, hoverinfo: 'skip', showlegend: false };
  }
  const labels = s.points.some((p) => p.label != null);
  const mode = `${labels ? 'text+' : ''}${s.type === 'line' ? 'lines' : ''}${s.type !== 'line' || s.points.length <= 24 ? `${s.type === 'line' ? '+' : ''}markers` : ''}` as PlotData['mode'];
  const hasErr = s.points.some((p) => p.err != null);
  return {
    type: 'scatter',
    mode,
    name: legendName(s.name),
    x,
    y,
    yaxis,
    text: s.points.map((p) => p.label ?? p.note ?? ''),
    textposition: 'top center',
    ...(hasErr ? { error_y: { type: 'data', array: s.points.map((p) => p.err ?? 0), visible: true, thickness: 1.5, width: 5, color: s.color } } : {}),
    line: { color: s.color, width: 2, dash: s.dashed ? 'dot' : undefined, shape: s.step ? 'hv' : undefined },
    marker: { size: 8, color: s.points.map((p) => (p.state === 'ok' ? s.color : STATE_COLOR[p.state])), symbol: s.points.map((p) => (p.excluded ? 'x' : 'circle')) },
    opacity: s.faded ? 0.5 : 1,
    hovertemplate: hover(s),
    showlegend: s.legend,
  };
}

function plotlyAxis(a: ChartAxis): Record<string, unknown> {
  return {
    title: { text: axisTitle(a) },
    ...(a.min != null && a.max != null ? { range: [a.min, a.max] } : {}),
    ...(a.zero ? { rangemode: 'tozero' } : {}),
    // explicit ticks: an overlaying axis otherwise syncs its ticks to the left axis' grid (31 %, 65 %...).
    ...(a.ticks ? { tickmode: 'array', tickvals: a.ticks } : {}),
  };
}

/** A chart spec as Plotly data and layout (theme colours are merged in by <Plot>). */
export function plotlyFigure(spec: ChartSpec): { data: PlotData[]; layout: Layout } {
  const layout: Layout = {
    xaxis: plotlyAxis(spec.x),
    yaxis: plotlyAxis(spec.y),
    showlegend: spec.legend,
    shapes: spec.bands.map((b) => ({ type: 'rect', xref: 'x', yref: 'paper', x0: b.from - 10, x1: b.to + 10, y0: 0, y1: 1, fillcolor: 'rgba(237,201,72,0.14)', line: { width: 0 }, layer: 'below' })),
  };
  if (spec.y2) {
    layout.yaxis2 = { ...plotlyAxis(spec.y2), overlaying: 'y', side: 'right', showgrid: false, zeroline: false };
    layout.margin = { l: 56, r: 56, t: 36, b: 40 };
    layout.legend = { orientation: 'h', x: 0, y: 1.12 };
    layout.barmode = 'overlay';
  }
  return { data: spec.series.map(trace), layout };
}
