import { useEffect, useRef } from 'react';
import Plotly from 'plotly.js-strict-dist-min';
import { buildLiveFigure, type LiveSource } from '../lib/live-figure';
import { useSettings } from '../state/settings';
import { PLOT_CONFIG, themeLayout } from './Plot';

export interface FrameStats {
  /** ms spent building and drawing this frame. */
  ms: number;
  points: number;
  /** Source changes since the previous frame (a frame draws all of them at once). */
  coalesced: number;
  /** Redraw ticks so far that found the previous draw still busy and were skipped. */
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

/**
 * Live traces of a running sweep. Samples land in bounded rings as they arrive; the figure is redrawn at most
 * every `refreshMs` (settings) from min/max-decimated windows, so an hour-long run at 10 Hz stays smooth.
 */
export function LiveTraces({ source, names, simulated = false, height = 620, onFrame }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const { theme, liveWindowMin, refreshMs, maxPoints } = useSettings();
  const namesRef = useRef(names);
  namesRef.current = names;
  const frameRef = useRef(onFrame);
  frameRef.current = onFrame;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let drawn = -1;
    let busy = false;
    let frames = 0;
    let skipped = 0;
    let lastVersion = source.version;
    let disposed = false;
    const draw = async () => {
      if (disposed) return;
      if (busy) {
        skipped++;
        return;
      }
      if (source.version === drawn) return;
      busy = true;
      const started = performance.now();
      const coalesced = source.version - lastVersion;
      lastVersion = source.version;
      drawn = source.version;
      const fig = buildLiveFigure(source, { windowS: liveWindowMin * 60, maxPoints, names: namesRef.current, simulated });
      const base = themeLayout(theme);
      const layout: Record<string, unknown> = { ...base, ...fig.layout, height, xaxis: { ...(base.xaxis as object), ...(fig.layout.xaxis as object) } };
      for (const k of ['yaxis', 'yaxis2', 'yaxis3', 'yaxis4']) layout[k] = { ...(base.yaxis as object), ...(fig.layout[k] as object) };
      try {
        await Plotly.react(el, fig.data, layout, PLOT_CONFIG);
      } finally {
        busy = false;
      }
      if (disposed) return;
      frames++;
      el.dataset.frames = String(frames);
      el.dataset.points = String(fig.points);
      el.dataset.lastT = String(source.lastT ?? '');
      frameRef.current?.({ ms: performance.now() - started, points: fig.points, coalesced, skippedTicks: skipped });
    };
    drawn = -1;
    void draw();
    const timer = setInterval(() => void draw(), refreshMs);
    const ro = new ResizeObserver(() => {
      // Not while a frame is drawn or after unmount: Plotly would read the layout of a figure being replaced.
      if (!disposed && !busy && el.offsetParent !== null && el.querySelector('.main-svg')) void Plotly.Plots.resize(el);
    });
    ro.observe(el);
    return () => {
      disposed = true;
      clearInterval(timer);
      ro.disconnect();
      // A frame still drawing finishes on its own element; purge after it so Plotly never draws into a purged one.
      const purge = () => (busy ? setTimeout(purge, 50) : Plotly.purge(el));
      purge();
    };
  }, [source, theme, liveWindowMin, refreshMs, maxPoints, height, simulated]);

  return <div ref={ref} className="live-traces" data-testid="live-traces" />;
}
