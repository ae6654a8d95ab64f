import type { Layout, PlotData } from 'plotly.js-strict-dist-min';
import type { RingSeries, XY } from '../../core/decimate';
import type { EventPayload } from '../../shared/api';
import { colorFor } from './format';

/** A phase change (cap set, warm-up, measure, cool-down) as the live figure marks it on the time axis. */
export interface PhaseMark {
  t: number;
  phase: EventPayload<'sweep.progress'>['phase'];
  run_id: number | null;
  cap_w: number | null;
}

/** What the live figure is drawn from (the live store, or the bench's synthetic feed). */
export interface LiveSource {
  devices(): string[];
  get(id: string): { power_w: RingSeries; sm_clock_mhz: RingSeries; temp_c: RingSeries; limit_w: RingSeries } | undefined;
  throughput: RingSeries;
  phases: PhaseMark[];
  /** First and last sample times seen (t0 of the time axis, and the window's right edge). */
  firstT: number | null;
  lastT: number | null;
}

export interface LiveFigure {
  data: PlotData[];
  layout: Layout;
  /** Points drawn in total (for tests and the bench). */
  points: number;
  t0: number;
}

const PHASE_COLORS: Record<string, string> = {
  'setting-cap': 'rgba(150,150,150,0.10)',
  warmup: 'rgba(242,142,43,0.12)',
  measure: 'rgba(89,161,79,0.12)',
  cooldown: 'rgba(78,154,241,0.10)',
  idle: 'rgba(0,0,0,0)',
};

const ROWS = [
  { key: 'power_w', title: 'Power (W)' },
  { key: 'sm_clock_mhz', title: 'SM clock (MHz)' },
  { key: 'temp_c', title: 'Temperature (°C)' },
  { key: 'throughput', title: 'Throughput (units/s per GPU)' },
] as const;

/**
 * Breaks a line where readings stop for a while (cool-downs without steps, the time between replayed runs): a null
 * point wherever the step to the next point exceeds five times the median step, so no diagonal bridges the gap.
 */
function breakGaps(d: XY): XY {
  if (d.t.length < 3) return d;
  const steps: number[] = [];
  for (let i = 1; i < d.t.length; i++) steps.push(d.t[i]! - d.t[i - 1]!);
  const median = [...steps].sort((a, b) => a - b)[steps.length >> 1]!;
  const limit = 5 * median;
  if (!(limit > 0)) return d;
  const out: XY = { t: [d.t[0]!], v: [d.v[0] ?? null] };
  for (let i = 1; i < d.t.length; i++) {
    if (steps[i - 1]! > limit) {
      out.t.push((d.t[i - 1]! + d.t[i]!) / 2);
      out.v.push(null);
    }
    out.t.push(d.t[i]!);
    out.v.push(d.v[i] ?? null);
  }
  return out;
}

/**
 * Builds the live figure: four stacked panels sharing the time axis (power with each device's cap as a dashed
 * line, SM clock, temperature, throughput), min/max decimated to maxPoints per trace over the last windowS
 * seconds, with the sweep's phases shaded. Time is shown in seconds since t0 (simulated time on simulated devices).
 */
export function buildLiveFigure(src: LiveSource, opts: { windowS: number; maxPoints: number; t0?: number; names?: Record<string, string>; simulated?: boolean }): LiveFigure {
  const ids = src.devices();
  const end = src.lastT ?? 0;
  const since = end - opts.windowS;
  const t0 = opts.t0 ?? src.firstT ?? end;
  // Typed arrays spare Plotly its per-point number cleaning; NaN marks a gap.
  const xy = (d: XY) => {
    const g = breakGaps(d);
    return { x: Float64Array.from(g.t, (x) => x - t0), y: Float64Array.from(g.v, (x) => (x == null ? NaN : x)) };
  };
  const data: PlotData[] = [];
  let points = 0;
  const domain = (row: number) => {
    const h = 1 / ROWS.length;
    const top = 1 - row * h;
    return [Math.max(0, top - h + 0.045), top - 0.01];
  };
  ids.forEach((id, i) => {
    const rec = src.get(id)!;
    const color = colorFor(i);
    const name = opts.names?.[id] ?? id;
    ROWS.slice(0, 3).forEach((row, r) => {
      const d = rec[row.key as 'power_w' | 'sm_clock_mhz' | 'temp_c'].decimated(opts.maxPoints, since);
      points += d.t.length;
      data.push({
        type: 'scatter',
        mode: 'lines',
        name,
        legendgroup: id,
        showlegend: r === 0,
        ...xy(d),
        line: { color, width: 1.4 },
        xaxis: 'x',
        yaxis: r === 0 ? 'y' : `y${r + 1}`,
        hovertemplate: `${name}<br>%{y:.0f} ${row.title.replace(/.*\((.*)\)/, '$1')}<extra></extra>`,
      });
    });
    const cap = rec.limit_w.decimated(Math.min(200, opts.maxPoints), since);
    points += cap.t.length;
    data.push({
      type: 'scatter',
      mode: 'lines',
      name: `${name} cap`,
      legendgroup: id,
      showlegend: false,
      ...xy(cap),
      line: { color, width: 1.2, dash: 'dash', shape: 'hv' },
      xaxis: 'x',
      yaxis: 'y',
      hovertemplate: `${name} cap %{y:.0f} W<extra></extra>`,
    });
  });
  const thr = src.throughput.decimated(opts.maxPoints, since);
  points += thr.t.length;
  data.push({ type: 'scatter', mode: 'lines', name: 'throughput', showlegend: false, ...xy(thr), line: { color: '#9c755f', width: 1.4 }, xaxis: 'x', yaxis: 'y4' });

  const shapes: Record<string, unknown>[] = [];
  const annotations: Record<string, unknown>[] = [];
  const phases = src.phases;
  // Phases are shaded only on a time axis that samples have set (before the first sample there is none).
  for (let i = 0; src.lastT !== null && i < phases.length; i++) {
    const p = phases[i]!;
    if (Number.isNaN(p.t)) continue;
    const next = phases.slice(i + 1).find((q) => !Number.isNaN(q.t))?.t ?? end;
    if (next < since || p.phase === 'idle') continue;
    const x0 = Math.max(p.t, since) - t0;
    const x1 = next - t0;
    if (!Number.isFinite(x0) || !Number.isFinite(x1)) continue;
    shapes.push({ type: 'rect', xref: 'x', yref: 'paper', x0, x1, y0: 0, y1: 1, fillcolor: PHASE_COLORS[p.phase], line: { width: 0 }, layer: 'below' });
    if (p.phase === 'warmup' && p.cap_w != null) {
      annotations.push({ x: x0, y: 1, xref: 'x', yref: 'paper', text: `${p.cap_w} W`, showarrow: false, xanchor: 'left', yanchor: 'bottom', font: { size: 10 } });
    }
  }

  const layout: Layout = {
    showlegend: true,
    legend: { orientation: 'h', x: 0, y: 1.06, yanchor: 'bottom' },
    margin: { l: 60, r: 16, t: 36, b: 36 },
    xaxis: { title: { text: opts.simulated ? 'simulated time since the sweep started (s)' : 'time since the sweep started (s)' }, range: [Math.max(since, t0) - t0, Math.max(end - t0, 1)], anchor: 'y4' },
    shapes,
    annotations,
  };
  ROWS.forEach((row, r) => {
    layout[r === 0 ? 'yaxis' : `yaxis${r + 1}`] = { title: { text: row.title, font: { size: 10 } }, domain: domain(r), autorange: true, rangemode: r === 3 ? 'tozero' : 'normal' };
  });
  return { data, layout, points, t0 };
}
