// Plotly traces for the results page, straight from the analysis (analyzeSweep): no statistics computed here.
import type { PlotData } from 'plotly.js-strict-dist-min';
import type { CapPoint, Optimum, ParetoResult, Stat } from '../../../shared/analysis';
import { capSeverity, FLAG_INFO, sortedFlags } from '../../lib/analysis-view';
import { colorFor } from '../../lib/format';

const FLAG_COLOR = { error: '#e15759', warn: '#f28e2b' } as const;

function withMean(caps: readonly CapPoint[], pick: (c: CapPoint) => Stat): CapPoint[] {
  return caps.filter((c) => pick(c).mean != null);
}

/** Marker per cap: the series colour, orange for warnings, a red cross where the cap was not enforced / excluded. */
function markers(caps: readonly CapPoint[], i: number, size: number): NonNullable<PlotData['marker']> {
  return {
    size,
    color: caps.map((c) => {
      const s = capSeverity(c);
      return s === 'error' || s === 'warn' ? FLAG_COLOR[s] : colorFor(i);
    }),
    symbol: caps.map((c) => (c.eligible ? 'circle' : 'x')),
  };
}

function flagText(c: CapPoint): string {
  return c.flags.length ? sortedFlags(c.flags).map((f) => FLAG_INFO[f].label).join(', ') : 'no flags';
}

function ciArray(caps: readonly CapPoint[], pick: (c: CapPoint) => Stat): number[] {
  return caps.map((c) => pick(c).ci?.half_width ?? 0);
}

/** One series of a per-cap statistic with 95 % CI error bars (the mean's line, the CI as bars). */
function statTrace(ok: readonly CapPoint[], pick: (c: CapPoint) => Stat, name: string, i: number, markerSize: number, text?: string[]): PlotData {
  return {
    type: 'scatter',
    mode: 'lines+markers',
    name,
    x: ok.map((c) => c.cap_w),
    y: ok.map((c) => pick(c).mean),
    error_y: { type: 'data', array: ciArray(ok, pick), visible: true, thickness: 1.5, width: 5, color: colorFor(i) },
    line: { color: colorFor(i), width: 2, dash: i ? 'dot' : undefined },
    marker: markers(ok, i, markerSize),
    ...(text ? { text } : {}),
    hovertemplate: `%{x} W: %{y:.4g} ± %{error_y.array:.2g}${text ? '<br>%{text}' : ''}<extra>${name}</extra>`,
  };
}

/** Efficiency vs cap with 95 % CI error bars; the best cap ringed (first series only). */
export function efficiencyTraces(caps: readonly CapPoint[], name: string, i: number, best: Optimum | null): PlotData[] {
  const ok = withMean(caps, (c) => c.efficiency);
  const out: PlotData[] = [statTrace(ok, (c) => c.efficiency, name, i, 9, ok.map((c) => `n = ${c.n_usable} · ${flagText(c)}`))];
  const b = best?.cap_w != null ? ok.find((c) => c.cap_w === best.cap_w) : undefined;
  if (b && i === 0) {
    out.push({ type: 'scatter', mode: 'markers', name: 'best cap', x: [b.cap_w], y: [b.efficiency.mean], marker: { color: 'rgba(0,0,0,0)', size: 20, line: { color: '#edc948', width: 3 } }, hoverinfo: 'skip', showlegend: false });
  }
  return out;
}

/** Throughput per GPU vs cap with 95 % CI error bars. */
export function throughputTraces(caps: readonly CapPoint[], name: string, i: number): PlotData[] {
  return [statTrace(withMean(caps, (c) => c.throughput), (c) => c.throughput, name, i, 8)];
}

/** Throughput (x) vs efficiency (y), both better when larger; the engine's Pareto front as a line. */
export function paretoTraces(p: ParetoResult, name: string, i: number): PlotData[] {
  const off = p.points.filter((x) => !x.on_front);
  return [
    {
      type: 'scatter',
      mode: 'text+markers',
      name: `${name} dominated`,
      x: off.map((x) => x.throughput),
      y: off.map((x) => x.efficiency),
      text: off.map((x) => `${x.cap_w} W`),
      textposition: 'top center',
      marker: { size: 8, color: colorFor(i) },
      opacity: 0.5,
      showlegend: false,
    },
    {
      type: 'scatter',
      mode: 'text+lines+markers',
      name: `${name} Pareto front`,
      x: p.front.map((x) => x.throughput),
      y: p.front.map((x) => x.efficiency),
      text: p.front.map((x) => `${x.cap_w} W`),
      textposition: 'top center',
      marker: { size: 9, color: colorFor(i) },
      line: { color: colorFor(i), width: 2, dash: 'dot' },
    },
  ];
}

/** Mean SM clock in the window vs cap, and the share of time the power-cap throttle reason was set (right axis). */
export function clockTraces(caps: readonly CapPoint[]): PlotData[] {
  const clk = caps.filter((c) => c.clocks.sm_mhz != null);
  const thr = caps.filter((c) => c.clocks.power_cap_throttled_share != null);
  return [
    {
      type: 'bar',
      name: 'power-cap throttle share',
      x: thr.map((c) => c.cap_w),
      y: thr.map((c) => c.clocks.power_cap_throttled_share! * 100),
      yaxis: 'y2',
      marker: { color: 'rgba(242,142,43,0.35)' },
      width: thr.map(() => 30),
      hovertemplate: '%{x} W: throttled by the power cap %{y:.0f} % of the window<extra></extra>',
    },
    {
      type: 'scatter',
      mode: 'lines+markers',
      name: 'SM clock',
      x: clk.map((c) => c.cap_w),
      y: clk.map((c) => c.clocks.sm_mhz),
      line: { color: '#59a14f', width: 2 },
      marker: { size: 7, color: '#59a14f' },
      hovertemplate: '%{x} W: %{y:.0f} MHz<extra></extra>',
    },
  ];
}

/** A shaded band over the caps that may be the best (none when the range is a single cap). */
export function rangeShape(o: Optimum | null): Record<string, unknown>[] {
  if (!o?.range_w || o.range_w[0] === o.range_w[1]) return [];
  return [{ type: 'rect', xref: 'x', yref: 'paper', x0: o.range_w[0] - 10, x1: o.range_w[1] + 10, y0: 0, y1: 1, fillcolor: 'rgba(237,201,72,0.14)', line: { width: 0 }, layer: 'below' }];
}
