// The Overlay page's figures, pure: one per metric with a trace per source (and device), the phase shading, and the
// sources that did not record the metric (said beside the plot, never drawn as 0).
import type { PlotData } from 'plotly.js-strict-dist-min';
import type { OverlayMetric, OverlayPhase, OverlaySource } from '../../../shared/overlay';
import { colorFor } from '../../../shared/format';

export const METRICS: readonly { metric: OverlayMetric; title: string; unit: string }[] = [
  { metric: 'power_w', title: 'Power', unit: 'W' },
  { metric: 'sm_clock_mhz', title: 'SM clock', unit: 'MHz' },
  { metric: 'temp_c', title: 'Temperature', unit: '°C' },
  { metric: 'throughput', title: 'Throughput', unit: '/s per GPU' },
];

export const PHASE_FILL: Record<OverlayPhase['phase'], string> = {
  warmup: 'rgba(242,142,43,0.13)',
  measure: 'rgba(89,161,79,0.13)',
  cooldown: 'rgba(78,121,167,0.13)',
};
export const PHASE_WORD: Record<OverlayPhase['phase'], string> = { warmup: 'warm-up', measure: 'measure', cooldown: 'cool-down' };

export interface MetricFigure {
  metric: OverlayMetric;
  title: string;
  unit: string;
  data: PlotData[];
  /** Labels of the sources without this metric, with why. */
  missing: { label: string; why: string }[];
}

/** The phases of all sources as shading rectangles: phases equal to 0.1 s are drawn once, so shading does not stack. */
export function phaseShapes(sources: readonly OverlaySource[]): Record<string, unknown>[] {
  const seen = new Set<string>();
  const out: Record<string, unknown>[] = [];
  for (const s of sources)
    for (const p of s.phases) {
      const key = `${p.phase}:${p.from.toFixed(1)}:${p.to.toFixed(1)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ type: 'rect', xref: 'x', yref: 'paper', x0: p.from, x1: p.to, y0: 0, y1: 1, fillcolor: PHASE_FILL[p.phase], line: { width: 0 }, layer: 'below' });
    }
  return out;
}

/** The unit of the throughput axis: the sources' own when they share one. */
export function throughputUnit(sources: readonly OverlaySource[]): string {
  const units = [...new Set(sources.filter((s) => s.error === null && s.throughput.t.length > 0).map((s) => s.units ?? 'units'))];
  return `${units.length === 1 ? units[0] : 'units'}/s per GPU`;
}

export function overlayFigures(sources: readonly OverlaySource[]): MetricFigure[] {
  const ok = sources.map((s, i) => ({ s, i })).filter(({ s }) => s.error === null);
  return METRICS.map(({ metric, title, unit }) => {
    const data: PlotData[] = [];
    for (const { s, i } of ok) {
      if (s.missing.some((m) => m.metric === metric)) continue;
      const line = { color: colorFor(i), width: 1.3 };
      if (metric === 'throughput') {
        data.push({ type: 'scatter', mode: 'lines', name: s.label, x: s.throughput.t, y: s.throughput.v, line, legendgroup: String(i) } as PlotData);
        continue;
      }
      s.devices.forEach((d, k) => {
        // A source of several GPUs: one line each, dashed apart, named by its device.
        const name = s.devices.length > 1 ? `${s.label} · GPU ${k} ${d.name}` : s.label;
        data.push({ type: 'scatter', mode: 'lines', name, x: d[metric].t, y: d[metric].v, line: { ...line, dash: k === 0 ? 'solid' : 'dot' }, legendgroup: String(i) } as PlotData);
      });
    }
    const missing = ok.flatMap(({ s }) => s.missing.filter((m) => m.metric === metric).map((m) => ({ label: s.label, why: m.why })));
    return { metric, title, unit: metric === 'throughput' ? throughputUnit(sources) : unit, data, missing };
  });
}
