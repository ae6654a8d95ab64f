import type { PlotData } from 'plotly.js-strict-dist-min';
import type { CapSummary } from '../../lib/results';
import { paretoFront } from '../../lib/results';
import { colorFor } from '../../lib/format';

export function efficiencyTraces(caps: CapSummary[], name: string, i: number, best: number | null): PlotData[] {
  const ok = caps.filter((c) => c.efficiency.mean != null);
  const out: PlotData[] = [
    {
      type: 'scatter',
      mode: 'lines+markers',
      name,
      x: ok.map((c) => c.cap_w),
      y: ok.map((c) => c.efficiency.mean),
      error_y: { type: 'data', array: ok.map((c) => c.efficiency.ci95 ?? 0), visible: true, thickness: 1.2, width: 4, color: colorFor(i) },
      line: { color: colorFor(i), width: 2 },
      marker: { color: ok.map((c) => (c.flags.some((f) => f.startsWith('cap not enforced')) ? '#e15759' : colorFor(i))), size: 8 },
      hovertemplate: '%{x} W: %{y:.4g} ± %{error_y.array:.2g}<extra>' + name + '</extra>',
    },
  ];
  const b = ok.find((c) => c.cap_w === best);
  if (b && i === 0) {
    out.push({ type: 'scatter', mode: 'markers', name: 'best cap', x: [b.cap_w], y: [b.efficiency.mean], marker: { color: 'rgba(0,0,0,0)', size: 18, line: { color: '#edc948', width: 3 } }, hoverinfo: 'skip' });
  }
  return out;
}

export function throughputTraces(caps: CapSummary[], name: string, i: number): PlotData[] {
  const ok = caps.filter((c) => c.throughput.mean != null);
  return [
    {
      type: 'scatter',
      mode: 'lines+markers',
      name,
      x: ok.map((c) => c.cap_w),
      y: ok.map((c) => c.throughput.mean),
      error_y: { type: 'data', array: ok.map((c) => c.throughput.ci95 ?? 0), visible: true, thickness: 1.2, width: 4, color: colorFor(i) },
      line: { color: colorFor(i), width: 2 },
      marker: { size: 7, color: colorFor(i) },
    },
  ];
}

export function paretoTraces(caps: CapSummary[]): PlotData[] {
  const ok = caps.filter((c) => c.throughput.mean != null && c.energy_per_unit != null);
  const front = paretoFront(caps);
  return [
    {
      type: 'scatter',
      mode: 'text+markers',
      name: 'caps',
      x: ok.map((c) => c.throughput.mean),
      y: ok.map((c) => c.energy_per_unit),
      text: ok.map((c) => `${c.cap_w} W`),
      textposition: 'top center',
      marker: { size: 8, color: colorFor(0) },
    },
    { type: 'scatter', mode: 'lines', name: 'Pareto front', x: front.map((c) => c.throughput.mean), y: front.map((c) => c.energy_per_unit), line: { color: '#59a14f', width: 2, dash: 'dot' } },
  ];
}
