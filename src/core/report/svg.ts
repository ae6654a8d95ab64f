// A chart spec (src/shared/charts.ts) as an inline SVG for the printed report: light theme, every axis titled with
// its unit, CI bars, markers coloured by flag state, excluded caps as crosses. Pure string building.
import { axisTitle, type ChartAxis, type ChartBand, type ChartSeries, type ChartSpec } from '../../shared/charts';
import { escapeHtml } from './html-escape';

const W = 560;
const H = 280;
const M = { l: 64, r: 64, t: 14, b: 46 };
const STATE_COLOR = { ok: null, warn: '#f28e2b', error: '#e15759' } as const;
const INK = '#24292f';
const GRID = '#d8dde3';
const MAX_MARKERS = 24;

/** About `count` round tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 6): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi - lo < 1e-12) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

interface Scale {
  lo: number;
  hi: number;
  ticks: number[];
  at(v: number): number;
}

/** The data range of an axis (error bars included), padded and widened to round ticks. */
function scale(a: ChartAxis, values: number[], pixels: [number, number], padFrac: number): Scale {
  let lo = a.min ?? Math.min(...values);
  let hi = a.max ?? Math.max(...values);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
  if (a.zero) lo = Math.min(lo, 0);
  if (hi - lo < 1e-9) [lo, hi] = [lo - Math.max(1, Math.abs(lo) * 0.1), hi + Math.max(1, Math.abs(hi) * 0.1)];
  if (a.min == null && !(a.zero && lo === 0)) lo -= (hi - lo) * padFrac;
  if (a.max == null) hi += (hi - lo) * padFrac;
  const ticks = a.ticks ?? niceTicks(lo, hi);
  if (a.min == null && ticks.length && !(a.zero && lo === 0)) lo = Math.min(lo, ticks[0]!);
  if (a.max == null && ticks.length) hi = Math.max(hi, ticks[ticks.length - 1]!);
  const [p0, p1] = pixels;
  return { lo, hi, ticks: ticks.filter((t) => t >= lo - 1e-9 && t <= hi + 1e-9), at: (v) => p0 + ((v - lo) / (hi - lo)) * (p1 - p0) };
}

/** Tick text: at most 4 significant digits, no exponent for the ranges charts use. */
export function tickText(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1000) return String(Math.round(v));
  return String(Number(v.toPrecision(4)));
}

const n = (v: number) => (Math.round(v * 10) / 10).toString();

function marker(x: number, y: number, color: string, excluded: boolean): string {
  if (excluded) return `<path d="M${n(x - 4)} ${n(y - 4)}L${n(x + 4)} ${n(y + 4)}M${n(x - 4)} ${n(y + 4)}L${n(x + 4)} ${n(y - 4)}" stroke="${color}" stroke-width="2"/>`;
  return `<circle cx="${n(x)}" cy="${n(y)}" r="3.6" fill="${color}"/>`;
}

function seriesSvg(s: ChartSeries, sx: Scale, sy: Scale, base: number): string {
  const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const op = s.faded ? ' opacity="0.55"' : '';
  const parts: string[] = [];
  if (s.type === 'bar') {
    const step = pts.length > 1 ? Math.min(...pts.slice(1).map((p, i) => Math.abs(sx.at(p.x) - sx.at(pts[i]!.x)))) : 40;
    const w = Math.max(4, Math.min(36, step * 0.5));
    for (const p of pts) {
      const y = sy.at(p.y);
      parts.push(`<rect x="${n(sx.at(p.x) - w / 2)}" y="${n(Math.min(y, base))}" width="${n(w)}" height="${n(Math.abs(base - y))}" fill="${s.color}" fill-opacity="0.35"/>`);
    }
    return `<g class="series bar" data-name="${escapeHtml(s.name)}">${parts.join('')}</g>`;
  }
  if (s.type === 'ring') {
    for (const p of pts) parts.push(`<circle cx="${n(sx.at(p.x))}" cy="${n(sy.at(p.y))}" r="9" fill="none" stroke="${s.color}" stroke-width="2.5"/>`);
    return `<g class="series ring">${parts.join('')}</g>`;
  }
  if (s.type === 'line' && pts.length > 1) {
    const d = pts.map((p, i) => (i === 0 ? `M${n(sx.at(p.x))} ${n(sy.at(p.y))}` : `${s.step ? `H${n(sx.at(p.x))}V` : `L${n(sx.at(p.x))} `}${n(sy.at(p.y))}`)).join('');
    parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.8"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/>`);
  }
  for (const p of pts) {
    if (p.err != null && p.err > 0) {
      const x = sx.at(p.x);
      const [y0, y1] = [sy.at(p.y - p.err), sy.at(p.y + p.err)];
      parts.push(`<path class="ci" d="M${n(x)} ${n(y0)}L${n(x)} ${n(y1)}M${n(x - 4)} ${n(y0)}L${n(x + 4)} ${n(y0)}M${n(x - 4)} ${n(y1)}L${n(x + 4)} ${n(y1)}" stroke="${s.color}" stroke-width="1.3"/>`);
    }
  }
  // A dense curve (the sensitivity sweep) reads better as a line alone.
  if (pts.length <= MAX_MARKERS) for (const p of pts) parts.push(marker(sx.at(p.x), sy.at(p.y), STATE_COLOR[p.state] ?? s.color, p.excluded));
  for (const p of pts) if (p.label) parts.push(`<text x="${n(sx.at(p.x))}" y="${n(sy.at(p.y) - 7)}" text-anchor="middle" font-size="9" fill="${INK}">${escapeHtml(p.label)}</text>`);
  return `<g class="series ${s.type}" data-name="${escapeHtml(s.name)}"${op}>${parts.join('')}</g>`;
}

function legendSvg(spec: ChartSpec): string {
  const items = spec.series.filter((s) => s.legend);
  if (!spec.legend || items.length === 0) return '';
  let x = M.l;
  const y = H - 8;
  return items
    .map((s) => {
      const sw = s.type === 'bar' ? `<rect x="${x}" y="${y - 7}" width="12" height="8" fill="${s.color}" fill-opacity="0.35"/>` : `<path d="M${x} ${y - 3}h14" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4 2"' : ''}/>`;
      const out = `${sw}<text x="${x + 18}" y="${y}" font-size="10" fill="${INK}">${escapeHtml(s.name)}</text>`;
      x += 30 + s.name.length * 5.6;
      return out;
    })
    .join('');
}

const WINDOW_SHADES = ['#4e9af1', '#edc948'];
/** Label text width at 8 px, for keeping window labels apart. */
const labelWidth = (text: string) => text.length * 5 + 2;

/**
 * A band: a cap range (widened so the edge caps' markers sit inside) or a time window with its label above the
 * plot. `labelEnd` is where the last window label drawn ends: a label that would overlap it is left out (the table
 * beside the chart names every window).
 */
function bandSvg(b: ChartBand, i: number, sx: Scale, plotB: number, labelEnd: { x: number }): string {
  const h = n(plotB - M.t);
  if (!b.window) return `<rect class="band" x="${n(sx.at(b.from) - 8)}" y="${M.t}" width="${n(sx.at(b.to) - sx.at(b.from) + 16)}" height="${h}" fill="#edc948" fill-opacity="0.18"/>`;
  const [x0, x1] = [sx.at(b.from), sx.at(b.to)];
  const mid = (x0 + x1) / 2;
  const w = labelWidth(b.label);
  let label = '';
  if (mid - w / 2 >= labelEnd.x) {
    label = `<text x="${n(mid)}" y="${M.t - 4}" text-anchor="middle" font-size="8" fill="${INK}">${escapeHtml(b.label)}</text>`;
    labelEnd.x = mid + w / 2 + 2;
  }
  return `<g class="band window"><rect x="${n(x0)}" y="${M.t}" width="${n(x1 - x0)}" height="${h}" fill="${WINDOW_SHADES[i % 2]}" fill-opacity="0.13"/>${label}</g>`;
}

/** The spec as a standalone <svg> (viewBox 560 x 280, scales to the page). */
export function chartSvg(spec: ChartSpec): string {
  const plotB = H - M.b - (spec.legend ? 12 : 0);
  const left = spec.series.filter((s) => s.axis === 'y');
  const right = spec.series.filter((s) => s.axis === 'y2');
  const xs = spec.series.flatMap((s) => s.points.map((p) => p.x)).concat(spec.bands.flatMap((b) => [b.from, b.to]));
  const ys = (list: ChartSeries[]) => list.flatMap((s) => s.points.flatMap((p) => (p.err ? [p.y - p.err, p.y + p.err] : [p.y])));
  const sx = scale(spec.x, xs, [M.l, W - M.r], 0.05);
  const sy = scale(spec.y, ys(left), [plotB, M.t], 0.08);
  const sy2 = spec.y2 ? scale(spec.y2, ys(right), [plotB, M.t], 0.08) : null;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" class="chart" data-chart="${spec.id}" role="img" aria-label="${escapeHtml(spec.title)}" font-family="Helvetica, Arial, sans-serif">`);
  const labelEnd = { x: -Infinity };
  spec.bands.forEach((b, i) => out.push(bandSvg(b, i, sx, plotB, labelEnd)));
  for (const t of sy.ticks) out.push(`<path d="M${M.l} ${n(sy.at(t))}H${W - M.r}" stroke="${GRID}" stroke-width="0.7"/><text x="${M.l - 5}" y="${n(sy.at(t) + 3)}" text-anchor="end" font-size="10" fill="${INK}">${tickText(t)}</text>`);
  for (const t of sx.ticks) out.push(`<path d="M${n(sx.at(t))} ${plotB}v4" stroke="${INK}"/><text x="${n(sx.at(t))}" y="${plotB + 15}" text-anchor="middle" font-size="10" fill="${INK}">${tickText(t)}</text>`);
  if (sy2) for (const t of sy2.ticks) out.push(`<text x="${W - M.r + 5}" y="${n(sy2.at(t) + 3)}" font-size="10" fill="${INK}">${tickText(t)}</text>`);
  out.push(`<path d="M${M.l} ${M.t}V${plotB}H${W - M.r}${sy2 ? `V${M.t}` : ''}" fill="none" stroke="${INK}" stroke-width="1"/>`);
  out.push(`<text class="axis-title" x="${(M.l + W - M.r) / 2}" y="${plotB + 32}" text-anchor="middle" font-size="11" fill="${INK}">${escapeHtml(axisTitle(spec.x))}</text>`);
  out.push(`<text class="axis-title" transform="translate(14 ${(M.t + plotB) / 2}) rotate(-90)" text-anchor="middle" font-size="11" fill="${INK}">${escapeHtml(axisTitle(spec.y))}</text>`);
  if (spec.y2) out.push(`<text class="axis-title" transform="translate(${W - 10} ${(M.t + plotB) / 2}) rotate(90)" text-anchor="middle" font-size="11" fill="${INK}">${escapeHtml(axisTitle(spec.y2))}</text>`);
  for (const s of right) out.push(seriesSvg(s, sx, sy2!, sy2!.at(Math.max(sy2!.lo, 0))));
  for (const s of left) out.push(seriesSvg(s, sx, sy, sy.at(Math.max(sy.lo, 0))));
  out.push(legendSvg(spec));
  if (spec.series.every((s) => s.points.length === 0)) out.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle" font-size="12" fill="${INK}">no data</text>`);
  out.push('</svg>');
  return out.join('');
}
