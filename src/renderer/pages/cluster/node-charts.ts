// Plot data for the node-to-node analysis (pure; unit-tested without a DOM).
import type { PlotData } from 'plotly.js-strict-dist-min';
import type { NodeGroup } from '../../../shared/cluster';
import { colorFor } from '../../lib/format';

/** Efficiency vs cap, one line per node; outlier points large and red. */
export function nodeEfficiencyTraces(g: NodeGroup): PlotData[] {
  return g.nodes.map((node, i) => {
    const pts = g.caps.flatMap((c) => {
      const p = c.per_node.find((x) => x.node === node);
      return p && p.efficiency !== null ? [{ cap: c.cap_w, e: p.efficiency, outlier: c.outliers.some((o) => o.node === node) }] : [];
    });
    return {
      type: 'scatter',
      mode: 'lines+markers',
      name: node,
      x: pts.map((p) => p.cap),
      y: pts.map((p) => p.e),
      line: { color: colorFor(i) },
      marker: { color: pts.map((p) => (p.outlier ? '#e15759' : colorFor(i))), size: pts.map((p) => (p.outlier ? 12 : 7)) },
      hovertemplate: `${node}: %{y:.4f} units/J at %{x} W<extra></extra>`,
    } as PlotData;
  });
}

/** Spread (max - min) / mean across nodes per cap, percent, for throughput, power and efficiency. */
export function spreadTraces(g: NodeGroup): PlotData[] {
  const metrics = [
    ['throughput', 'throughput'],
    ['power_w', 'power'],
    ['efficiency', 'efficiency'],
    ['gpu_power_w', 'GPU power (GPU to GPU)'],
  ] as const;
  return metrics.map(([key, label], i) => ({
    type: 'bar',
    name: label,
    x: g.caps.map((c) => c.cap_w),
    y: g.caps.map((c) => (c[key].range_rel === null ? null : c[key].range_rel * 100)),
    marker: { color: colorFor(i) },
    hovertemplate: `${label}: %{y:.2f} % at %{x} W<extra></extra>`,
  })) as PlotData[];
}
