import { useEffect, useRef, useState } from 'react';
import { drawLiveFigure, nearestPoint, type DrawnFigure } from '../lib/live-canvas';
import { buildLiveFigure, timeAxisTitle, type LiveFigure, type LiveSource } from '../lib/live-figure';
import { useSettings } from '../state/settings';

export interface FrameStats {
  /** ms spent building and drawing this frame. */
  ms: number;
  /** Of which building the decimated figure (the rest is drawing it). */
  buildMs: number;
  points: number;
  /** Source changes since the previous frame (a frame draws all of them at once). */
  coalesced: number;
  /** Redraw ticks so far that found the previous draw still busy and were skipped (drawing is synchronous: 0). */
  skippedTicks: number;
}

interface Props {
  source: LiveSource & { version: number; subscribe?(l: () => void): () => void };
  names?: Record<string, string>;
  /** Simulated devices: the time axis says it runs in simulated seconds. */
  simulated?: boolean;
  height?: number;
  /** Called after each drawn frame (tests and the bench read it). */
  onFrame?(s: FrameStats): void;
}

type Legend = LiveFigure['legend'];
const legendKey = (l: Legend) => l.map((e) => `${e.group}\u0000${e.name}\u0000${e.color}`).join('\u0001');

/**
 * Live traces of a running sweep. Samples land in bounded rings as they arrive; the figure is redrawn at most every
 * `refreshMs` (settings) from min/max-decimated windows kept up to date incrementally, on a 2D canvas, so 8 GPUs at
 * 10 Hz over an hour stay smooth. The legend (click to hide or show a device) and the time-axis title are HTML.
 */
export function LiveTraces({ source, names, simulated = false, height = 620, onFrame }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  const { theme, liveWindowMin, refreshMs, maxPoints } = useSettings();
  const namesRef = useRef(names);
  namesRef.current = names;
  const frameRef = useRef(onFrame);
  frameRef.current = onFrame;
  const [legend, setLegend] = useState<Legend>([]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const hiddenRef = useRef(hidden);
  hiddenRef.current = hidden;
  const redrawRef = useRef<() => void>(() => undefined);

  useEffect(() => {
    const el = ref.current;
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!el || !canvas || !ctx) return;
    let drawn = -1;
    let frames = 0;
    let draws = 0;
    let lastVersion = source.version;
    let disposed = false;
    let legendSeen = '';
    let last: { fig: LiveFigure; at: DrawnFigure } | null = null;
    // The size the canvas was last drawn at: a resize redraws only when it changed, at most once an animation frame.
    let drawnW = -1;
    let drawnH = -1;
    let resizeQueued = false;
    const draw = (force = false) => {
      if (disposed || (!force && source.version === drawn)) return;
      const started = performance.now();
      const coalesced = source.version - lastVersion;
      lastVersion = source.version;
      drawn = source.version;
      const fig = buildLiveFigure(source, { windowS: liveWindowMin * 60, maxPoints, names: namesRef.current });
      const built = performance.now();
      const w = canvas.clientWidth;
      const h = canvas.clientHeight;
      const dpr = window.devicePixelRatio || 1;
      if (w !== drawnW || h !== drawnH) {
        // Resizing the backing store clears it; only done when the element's size changed.
        canvas.width = Math.max(1, Math.round(w * dpr));
        canvas.height = Math.max(1, Math.round(h * dpr));
        drawnW = w;
        drawnH = h;
      }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      // The theme's colours as the page's CSS has them now (read per frame: the theme attribute may change later).
      const css = getComputedStyle(el);
      const colors = { fg: css.getPropertyValue('--fg').trim() || '#c9d1d9', grid: css.getPropertyValue('--border').trim() || '#2a3038' };
      const at = drawLiveFigure(ctx, fig, { width: w, height: h, hidden: hiddenRef.current, colors });
      last = { fig, at };
      draws++;
      frames++;
      const key = legendKey(fig.legend);
      if (key !== legendSeen) {
        legendSeen = key;
        setLegend(fig.legend);
      }
      el.dataset.frames = String(frames);
      el.dataset.draws = String(draws);
      el.dataset.points = String(fig.points);
      el.dataset.lastT = String(source.lastT ?? '');
      el.dataset.traces = String(at.traces.length);
      el.dataset.phases = String(at.phases);
      // Unbroken stretches of the throughput line (the last trace): gaps in the readings break it.
      el.dataset.throughputSegments = String(at.traces.find((t) => fig.traces[t.index]!.group === 'throughput')?.segments ?? 0);
      frameRef.current?.({ ms: performance.now() - started, buildMs: built - started, points: fig.points, coalesced, skippedTicks: 0 });
    };
    redrawRef.current = () => draw(true);
    // The first frame waits for the next animation frame: on a theme change this effect runs before App's, which
    // sets the theme attribute whose CSS colours the canvas reads.
    const first = requestAnimationFrame(() => draw(true));
    const timer = setInterval(() => draw(), refreshMs);
    const ro = new ResizeObserver(() => {
      if (disposed || resizeQueued || (canvas.clientWidth === drawnW && canvas.clientHeight === drawnH)) return;
      resizeQueued = true;
      requestAnimationFrame(() => {
        resizeQueued = false;
        if (!disposed && (canvas.clientWidth !== drawnW || canvas.clientHeight !== drawnH)) draw(true);
      });
    });
    ro.observe(canvas);
    const tip = tipRef.current!;
    const onMove = (e: MouseEvent) => {
      const r = canvas.getBoundingClientRect();
      const mx = e.clientX - r.left;
      const my = e.clientY - r.top;
      const hit = last && nearestPoint(last.fig, last.at, mx, my);
      if (!last || !hit) {
        tip.hidden = true;
        return;
      }
      const tr = last.fig.traces[hit.trace]!;
      const row = last.fig.rows[tr.row]!;
      tip.textContent = `${tr.name}: ${Math.round(tr.y[hit.i]! * 10) / 10} ${row.unit} at ${Math.round(tr.x[hit.i]! * 10) / 10} s`;
      tip.style.borderColor = tr.color;
      tip.style.left = `${Math.min(mx + 12, r.width - 220)}px`;
      tip.style.top = `${my + 12}px`;
      tip.hidden = false;
    };
    const onLeave = () => (tip.hidden = true);
    canvas.addEventListener('mousemove', onMove);
    canvas.addEventListener('mouseleave', onLeave);
    return () => {
      disposed = true;
      cancelAnimationFrame(first);
      clearInterval(timer);
      ro.disconnect();
      canvas.removeEventListener('mousemove', onMove);
      canvas.removeEventListener('mouseleave', onLeave);
      redrawRef.current = () => undefined;
    };
  }, [source, theme, liveWindowMin, refreshMs, maxPoints, height, simulated]);

  // Showing or hiding a device redraws at once, not at the next tick.
  useEffect(() => redrawRef.current(), [hidden]);

  const toggle = (group: string) =>
    setHidden((h) => {
      const next = new Set(h);
      if (!next.delete(group)) next.add(group);
      return next;
    });

  return (
    <div ref={ref} className="live-traces" data-testid="live-traces" style={{ height }}>
      <div className="live-legend" role="group" aria-label="devices shown in the live traces">
        {legend.map((e) => (
          <button key={e.group} type="button" className="live-legend-item" aria-pressed={!hidden.has(e.group)} onClick={() => toggle(e.group)} data-testid="live-legend-item" title={hidden.has(e.group) ? `Show ${e.name}` : `Hide ${e.name}`}>
            <span className="swatch" style={{ background: e.color }} />
            {e.name}
          </button>
        ))}
        {legend.length > 0 && <span className="muted small">dashed: power cap</span>}
      </div>
      <div className="live-stage">
        <canvas ref={canvasRef} role="img" aria-label="Live traces: power and cap, SM clock, temperature and throughput over time, per device" data-testid="live-canvas" />
        <div ref={tipRef} className="live-tip" hidden data-testid="live-tip" />
      </div>
      <div className="live-xtitle">{timeAxisTitle(simulated)}</div>
    </div>
  );
}
