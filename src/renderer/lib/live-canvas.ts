import { lowerBound } from '../../core/decimate';
import type { LiveFigure } from './live-figure';
import { tickLabel } from './tick-label';

/**
 * Draws the live figure on a 2D canvas: the four panels with their grids, tick labels and titles, the shaded phases
 * and every trace. Plotly's SVG scatter redrew the whole figure (33 traces, 10,000 points at 8 GPUs) on every frame
 * in 40-400 ms; a canvas frame is a few ms. (WebGL traces are not an option: the CSP forbids them.)
 */

export interface CanvasColors {
  fg: string;
  grid: string;
}

interface Panel {
  top: number;
  bottom: number;
  y0: number;
  y1: number;
}

/** What one drawing put where: hover reads it, tests read its counts. */
export interface DrawnFigure {
  left: number;
  right: number;
  x0: number;
  x1: number;
  panels: Panel[];
  /** Traces drawn (hidden legend entries left out) and, per trace, its unbroken stretches. */
  traces: { index: number; segments: number }[];
  phases: number;
}

const MARGIN = { l: 62, r: 16, t: 16, b: 20 };
const PANEL_GAP = 18;

/** A round tick step giving about `count` ticks over `span`. */
function tickStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/** Round ticks over [lo, hi] and their step (which sets how many digits a label needs). */
function ticks(lo: number, hi: number, count: number): { values: number[]; step: number } {
  const step = tickStep(hi - lo, count);
  const values: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) values.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return { values, step };
}


/** Each panel's value range: the visible traces' extent, padded 5 %; throughput from zero. */
function panelRange(fig: LiveFigure, row: number, hidden: ReadonlySet<string>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const tr of fig.traces) {
    if (tr.row !== row || hidden.has(tr.group)) continue;
    const y = tr.y;
    for (let i = 0; i < y.length; i++) {
      const v = y[i]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (fig.rows[row]!.toZero) lo = Math.min(0, lo);
  if (!(hi >= lo)) return [0, 1];
  if (hi === lo) return [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.05;
  return [fig.rows[row]!.toZero && lo === 0 ? 0 : lo - pad, hi + pad];
}

export function drawLiveFigure(ctx: CanvasRenderingContext2D, fig: LiveFigure, o: { width: number; height: number; hidden: ReadonlySet<string>; colors: CanvasColors }): DrawnFigure {
  const { width, height, hidden, colors } = o;
  ctx.clearRect(0, 0, width, height);
  const left = MARGIN.l;
  const right = width - MARGIN.r;
  const [x0, x1] = fig.xRange;
  const X = (x: number) => left + ((x - x0) / (x1 - x0)) * (right - left);
  const rows = fig.rows.length;
  const ph = (height - MARGIN.t - MARGIN.b - PANEL_GAP * (rows - 1)) / rows;
  const panels: Panel[] = fig.rows.map((_, r) => {
    const top = MARGIN.t + r * (ph + PANEL_GAP);
    const [y0, y1] = panelRange(fig, r, hidden);
    return { top, bottom: top + ph, y0, y1 };
  });
  const Y = (p: Panel, v: number) => p.bottom - ((v - p.y0) / (p.y1 - p.y0)) * (p.bottom - p.top);
  const plotTop = MARGIN.t;
  const plotBottom = panels[rows - 1]!.bottom;

  // Phases behind everything, over all panels; a warm-up is labelled with its cap above the first panel.
  ctx.font = '10px system-ui, sans-serif';
  ctx.textBaseline = 'bottom';
  ctx.textAlign = 'left';
  let phases = 0;
  for (const p of fig.phases) {
    const a = Math.max(left, X(p.x0));
    const b = Math.min(right, X(p.x1));
    if (b <= a) continue;
    ctx.fillStyle = p.fill;
    ctx.fillRect(a, plotTop, b - a, plotBottom - plotTop);
    phases++;
    if (p.label) {
      ctx.fillStyle = colors.fg;
      ctx.fillText(p.label, a + 2, plotTop - 2);
    }
  }

  // Grid and tick labels.
  ctx.strokeStyle = colors.grid;
  ctx.lineWidth = 1;
  ctx.fillStyle = colors.fg;
  ctx.beginPath();
  const xt = ticks(x0, x1, Math.max(2, Math.floor((right - left) / 110)));
  for (const t of xt.values) {
    const px = Math.round(X(t)) + 0.5;
    for (const p of panels) {
      ctx.moveTo(px, p.top);
      ctx.lineTo(px, p.bottom);
    }
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const p of panels) {
    const yt = ticks(p.y0, p.y1, Math.max(2, Math.floor((p.bottom - p.top) / 30)));
    for (const v of yt.values) {
      const py = Math.round(Y(p, v)) + 0.5;
      ctx.moveTo(left, py);
      ctx.lineTo(right, py);
      ctx.fillText(tickLabel(v, yt.step), left - 6, py);
    }
  }
  ctx.stroke();
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of xt.values) ctx.fillText(tickLabel(t, xt.step), X(t), plotBottom + 4);
  // Panel titles, rotated along the left edge.
  ctx.save();
  ctx.textBaseline = 'top';
  fig.rows.forEach((row, r) => {
    const p = panels[r]!;
    ctx.save();
    ctx.translate(2, (p.top + p.bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText(row.title, 0, 0, p.bottom - p.top);
    ctx.restore();
  });
  ctx.restore();

  // Traces, each clipped to its panel; NaN lifts the pen (a gap), caps are dashed steps.
  const drawn: DrawnFigure['traces'] = [];
  fig.traces.forEach((tr, index) => {
    if (hidden.has(tr.group)) return;
    const p = panels[tr.row]!;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, p.top, right - left, p.bottom - p.top);
    ctx.clip();
    ctx.beginPath();
    ctx.strokeStyle = tr.color;
    ctx.lineWidth = tr.cap ? 1.2 : 1.4;
    ctx.setLineDash(tr.cap ? [5, 3] : []);
    let pen = false;
    let lastY = 0;
    let segments = 0;
    for (let i = 0; i < tr.x.length; i++) {
      const v = tr.y[i]!;
      if (Number.isNaN(v)) {
        pen = false;
        continue;
      }
      const px = X(tr.x[i]!);
      const py = Y(p, v);
      if (!pen) {
        ctx.moveTo(px, py);
        segments++;
        pen = true;
      } else {
        if (tr.cap) ctx.lineTo(px, lastY);
        ctx.lineTo(px, py);
      }
      lastY = py;
    }
    ctx.stroke();
    ctx.restore();
    drawn.push({ index, segments });
  });
  return { left, right, x0, x1, panels, traces: drawn, phases };
}

/** The drawn point nearest to (mx, my) within `radius` px, in the panel under the pointer. */
export function nearestPoint(fig: LiveFigure, d: DrawnFigure, mx: number, my: number, radius = 24): { trace: number; i: number } | null {
  const row = d.panels.findIndex((p) => my >= p.top && my <= p.bottom);
  if (row < 0 || mx < d.left || mx > d.right) return null;
  const p = d.panels[row]!;
  const x = d.x0 + ((mx - d.left) / (d.right - d.left)) * (d.x1 - d.x0);
  const pxPerX = (d.right - d.left) / (d.x1 - d.x0);
  const pxPerY = (p.bottom - p.top) / (p.y1 - p.y0);
  let best: { trace: number; i: number } | null = null;
  let bestD = radius * radius;
  for (const { index } of d.traces) {
    const tr = fig.traces[index]!;
    if (tr.row !== row) continue;
    // The first point at or after x, and its neighbours.
    const lo = lowerBound(tr.x.length, x, (i) => tr.x[i]!);
    for (let i = Math.max(0, lo - 2); i < Math.min(tr.x.length, lo + 2); i++) {
      const v = tr.y[i]!;
      if (Number.isNaN(v)) continue;
      const dx = (tr.x[i]! - x) * pxPerX;
      const dy = (p.bottom - (v - p.y0) * pxPerY - my);
      const dd = dx * dx + dy * dy;
      if (dd < bestD) {
        bestD = dd;
        best = { trace: index, i };
      }
    }
  }
  return best;
}
