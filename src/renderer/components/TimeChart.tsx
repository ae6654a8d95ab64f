import type { XY } from '../../core/decimate';

export interface TimeLine {
  label: string;
  data: XY;
  color: string;
  dashed?: boolean;
}

const W = 360;
const H = 150;
const PAD = { l: 44, r: 8, t: 8, b: 22 };

/** Round tick steps (1, 2, 5 × 10^k) covering [lo, hi] in about `n` steps. */
export function niceTicks(lo: number, hi: number, n = 4): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out;
}

/** Minutes-ago ticks for a window: every minute (5 min), 5 min (15 min) or 15 min (60 min). */
function timeTicks(windowS: number): number[] {
  const every = windowS <= 300 ? 60 : windowS <= 900 ? 300 : 900;
  const out: number[] = [];
  for (let s = windowS; s >= 0; s -= every) out.push(s);
  return out;
}

/**
 * A time chart with axes in SVG (no Plotly: a devices page redraws once a second for every GPU): the last
 * `windowS` seconds before `nowT`, y axis in `unit`. `emptyText` is shown where no line has a reading.
 */
export function TimeChart({ title, unit, lines, nowT, windowS, min, max, emptyText, testId }: { title: string; unit: string; lines: TimeLine[]; nowT: number | null; windowS: number; min?: number; max?: number; emptyText: string; testId?: string }) {
  const vals = lines.flatMap((l) => l.data.v.filter((x): x is number => x != null && Number.isFinite(x)));
  const has = nowT !== null && vals.length > 0;
  const lo = min ?? (has ? Math.min(...vals) : 0);
  let hi = max ?? (has ? Math.max(...vals) : 1);
  if (!(hi > lo)) hi = lo + 1;
  const yTicks = niceTicks(lo, hi);
  // The axis ends on a labelled tick at or above the top of the data (a 700 W limit: axis to 800 W).
  const top = yTicks[yTicks.length - 1]!;
  if (top < hi && yTicks.length > 1) {
    hi = top + (top - yTicks[yTicks.length - 2]!);
    yTicks.push(hi);
  }
  const pw = W - PAD.l - PAD.r;
  const ph = H - PAD.t - PAD.b;
  const t0 = (nowT ?? 0) - windowS;
  const sx = (t: number) => PAD.l + ((t - t0) / windowS) * pw;
  const sy = (v: number) => PAD.t + ph - ((v - lo) / (hi - lo)) * ph;
  const path = (d: XY) => {
    let s = '';
    let pen = false;
    d.t.forEach((t, i) => {
      const v = d.v[i];
      if (v == null || !Number.isFinite(v) || t < t0) {
        pen = false;
        return;
      }
      s += `${pen ? 'L' : 'M'}${sx(t).toFixed(1)},${sy(Math.max(lo, Math.min(hi, v))).toFixed(1)}`;
      pen = true;
    });
    return s;
  };
  return (
    <figure className="time-chart" data-testid={testId} data-empty={has ? 'false' : 'true'}>
      <figcaption>
        {title} <span className="muted">({unit})</span>
        {lines.length > 1 &&
          lines.map((l) => (
            <span key={l.label} className="tc-key">
              <svg width={14} height={6} aria-hidden="true">
                <line x1={0} y1={3} x2={14} y2={3} stroke={l.color} strokeWidth={2} strokeDasharray={l.dashed ? '3 2' : undefined} />
              </svg>
              {l.label}
            </span>
          ))}
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={has ? `${title}, last ${windowS / 60} min` : `${title}: ${emptyText}`}>
        <g className="tc-axis">
          {yTicks.map((v) => (
            <g key={v}>
              <line x1={PAD.l} x2={W - PAD.r} y1={sy(v)} y2={sy(v)} className="tc-grid" />
              <text x={PAD.l - 4} y={sy(v) + 3} textAnchor="end" data-testid="y-tick">
                {v}
              </text>
            </g>
          ))}
          {timeTicks(windowS).map((ago) => (
            <text key={ago} x={sx(t0 + windowS - ago)} y={H - 6} textAnchor={ago === 0 ? 'end' : 'middle'} data-testid="x-tick">
              {ago === 0 ? 'now' : `−${ago / 60} min`}
            </text>
          ))}
          <line x1={PAD.l} x2={PAD.l} y1={PAD.t} y2={PAD.t + ph} className="tc-frame" />
          <line x1={PAD.l} x2={W - PAD.r} y1={PAD.t + ph} y2={PAD.t + ph} className="tc-frame" />
        </g>
        {has ? (
          lines.map((l) => <path key={l.label} d={path(l.data)} fill="none" stroke={l.color} strokeWidth={1.5} strokeDasharray={l.dashed ? '4 3' : undefined} data-testid="tc-line" />)
        ) : (
          <text x={PAD.l + pw / 2} y={PAD.t + ph / 2} textAnchor="middle" className="tc-empty">
            {emptyText}
          </text>
        )}
      </svg>
    </figure>
  );
}
