import { WindowDecimator, type RingSeries, type XY } from '../../core/decimate';
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

/** One line of the live figure, in seconds since t0 (NaN breaks the line). */
export interface LiveTrace {
  /** Device id (or 'throughput'): the legend entry that shows or hides it. */
  group: string;
  name: string;
  /** Panel, 0 to 3 (power, SM clock, temperature, throughput). */
  row: number;
  color: string;
  /** Dashed step line (a device's power cap). */
  cap: boolean;
  x: Float64Array;
  y: Float64Array;
}

export interface LiveFigure {
  traces: LiveTrace[];
  /** Legend entries: device id, shown name, colour. */
  legend: { group: string; name: string; color: string }[];
  /** Shaded sweep phases, x in seconds since t0; label: the cap a warm-up starts. */
  phases: { x0: number; x1: number; fill: string; label: string | null }[];
  xRange: [number, number];
  rows: readonly { title: string; unit: string; toZero: boolean }[];
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
  { key: 'power_w', title: 'Power (W)', unit: 'W', toZero: false },
  { key: 'sm_clock_mhz', title: 'SM clock (MHz)', unit: 'MHz', toZero: false },
  { key: 'temp_c', title: 'Temperature (°C)', unit: '°C', toZero: false },
  { key: 'throughput', title: 'Throughput (units/s per GPU)', unit: 'units/s', toZero: true },
] as const;

/**
 * Breaks a line where readings stop for a while (cool-downs without steps, the time between replayed runs): a null
 * point wherever the step to the next point exceeds five times the median step, so no diagonal bridges the gap.
 */
function breakGaps(d: XY): XY {
  if (d.t.length < 3) return d;
  const steps = new Float64Array(d.t.length - 1);
  for (let i = 1; i < d.t.length; i++) steps[i - 1] = d.t[i]! - d.t[i - 1]!;
  // A typed copy sorts numerically without a comparator call per step (33 traces a frame).
  const median = steps.slice().sort()[steps.length >> 1]!;
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

export const timeAxisTitle = (simulated: boolean) => (simulated ? 'simulated time since the sweep started (s)' : 'time since the sweep started (s)');

/** Each ring's decimators by point budget, kept from frame to frame so a frame folds in only the new points. */
const decimators = new WeakMap<RingSeries, Map<number, WindowDecimator>>();

function windowOf(ring: RingSeries, maxPoints: number, windowS: number, since: number): XY {
  let byPoints = decimators.get(ring);
  if (!byPoints) decimators.set(ring, (byPoints = new Map()));
  let d = byPoints.get(maxPoints);
  if (!d || d.windowS !== windowS) byPoints.set(maxPoints, (d = new WindowDecimator(ring, windowS, maxPoints)));
  return d.window(since);
}

/**
 * Builds the live figure: four stacked panels sharing the time axis (power with each device's cap as a dashed
 * line, SM clock, temperature, throughput), min/max decimated to maxPoints per trace over the last windowS
 * seconds, with the sweep's phases shaded. Time is shown in seconds since t0 (simulated time on simulated devices).
 * live-canvas.ts draws it.
 */
export function buildLiveFigure(src: LiveSource, opts: { windowS: number; maxPoints: number; t0?: number; names?: Record<string, string> }): LiveFigure {
  const ids = src.devices();
  const end = src.lastT ?? 0;
  const since = end - opts.windowS;
  const t0 = opts.t0 ?? src.firstT ?? end;
  // Typed arrays spare Plotly its per-point number cleaning; NaN marks a gap.
  const xy = (d: XY) => {
    const g = breakGaps(d);
    return { x: Float64Array.from(g.t, (x) => x - t0), y: Float64Array.from(g.v, (x) => (x == null ? NaN : x)) };
  };
  const traces: LiveTrace[] = [];
  const legend: LiveFigure['legend'] = [];
  let points = 0;
  ids.forEach((id, i) => {
    const rec = src.get(id)!;
    const color = colorFor(i);
    const name = opts.names?.[id] ?? id;
    legend.push({ group: id, name, color });
    ROWS.slice(0, 3).forEach((row, r) => {
      const d = windowOf(rec[row.key as 'power_w' | 'sm_clock_mhz' | 'temp_c'], opts.maxPoints, opts.windowS, since);
      points += d.t.length;
      traces.push({ group: id, name, row: r, color, cap: false, ...xy(d) });
    });
    const cap = windowOf(rec.limit_w, Math.min(200, opts.maxPoints), opts.windowS, since);
    points += cap.t.length;
    traces.push({ group: id, name: `${name} cap`, row: 0, color, cap: true, ...xy(cap) });
  });
  const thr = windowOf(src.throughput, opts.maxPoints, opts.windowS, since);
  points += thr.t.length;
  traces.push({ group: 'throughput', name: 'throughput', row: 3, color: '#9c755f', cap: false, ...xy(thr) });

  const shaded: LiveFigure['phases'] = [];
  const phases = src.phases;
  // Phases are shaded only on a time axis that samples have set (before the first sample there is none).
  for (let i = 0; src.lastT !== null && i < phases.length; i++) {
    const p = phases[i]!;
    if (Number.isNaN(p.t)) continue;
    let next = end;
    for (let j = i + 1; j < phases.length; j++) {
      if (!Number.isNaN(phases[j]!.t)) {
        next = phases[j]!.t;
        break;
      }
    }
    if (next < since || p.phase === 'idle') continue;
    const x0 = Math.max(p.t, since) - t0;
    const x1 = next - t0;
    if (!Number.isFinite(x0) || !Number.isFinite(x1)) continue;
    shaded.push({ x0, x1, fill: PHASE_COLORS[p.phase]!, label: p.phase === 'warmup' && p.cap_w != null ? `${p.cap_w} W` : null });
  }
  return {
    traces,
    legend,
    phases: shaded,
    xRange: [Math.max(since, t0) - t0, Math.max(end - t0, 1)],
    rows: ROWS,
    points,
    t0,
  };
}
