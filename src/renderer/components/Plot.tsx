import { useEffect, useRef } from 'react';
import Plotly, { type Layout, type PlotData } from 'plotly.js-strict-dist-min';
import { useSettings, type Theme } from '../state/settings';

/** Layout colours for the current theme (plots use SVG `scatter`; WebGL traces are not allowed by the CSP). */
export function themeLayout(theme: Theme): Layout {
  const fg = theme === 'dark' ? '#c9d1d9' : '#24292f';
  const grid = theme === 'dark' ? '#2a3038' : '#e1e4e8';
  return {
    paper_bgcolor: 'rgba(0,0,0,0)',
    plot_bgcolor: 'rgba(0,0,0,0)',
    font: { color: fg, size: 11, family: 'system-ui, sans-serif' },
    margin: { l: 56, r: 16, t: 28, b: 40 },
    xaxis: { gridcolor: grid, zerolinecolor: grid },
    yaxis: { gridcolor: grid, zerolinecolor: grid },
    // Above the plot: below it, the legend sat on the x-axis title.
    legend: { orientation: 'h', x: 0, y: 1.02, yanchor: 'bottom' },
    hovermode: 'closest',
  };
}

export const PLOT_CONFIG = { displaylogo: false, responsive: false, modeBarButtonsToRemove: ['lasso2d', 'select2d'] };

function mergeAxes(base: Layout, layout: Layout): Layout {
  const out: Layout = { ...base, ...layout };
  for (const k of Object.keys(layout)) {
    if (/^[xy]axis\d*$/.test(k)) out[k] = { ...((base[k.replace(/\d+$/, '')] as object) ?? {}), ...(layout[k] as object) };
  }
  return out;
}

interface Props {
  data: PlotData[];
  layout?: Layout;
  className?: string;
  testId?: string;
  height?: number;
  onPointClick?: (p: { curveNumber: number; pointIndex: number; x: unknown; y: unknown; customdata?: unknown }) => void;
  /** Zoom/pan: the new x range, or null when the axis was reset (autorange). */
  onXRange?: (range: [number, number] | null) => void;
  /** A box selection (dragmode 'select'): its x range. */
  onSelectX?: (range: [number, number]) => void;
}

/** How long a drawing may stay unsettled before the newest figure is drawn anyway. */
const DRAW_WAIT_MS = 1000;

type PlotDiv = HTMLDivElement & { data?: PlotData[]; on?: (ev: string, cb: (e: never) => void) => void };

/** The drawing state of one Plot: the newest figure not yet started, and the drawings not yet settled. */
interface Drawer {
  alive: boolean;
  draining: boolean;
  next: { data: PlotData[]; layout: Layout } | null;
  pending: Set<Promise<unknown>>;
}

/** The trace names in order: a plot whose traces come or go (a compared sweep picked) is drawn afresh. */
const shape = (data: readonly PlotData[] | undefined) => (data ?? []).map((t) => String(t.name ?? '')).join('\u0000');

export function Plot({ data, layout = {}, className, testId, height = 320, onPointClick, onXRange, onSelectX }: Props) {
  const ref = useRef<PlotDiv>(null);
  const theme = useSettings((s) => s.theme);
  const clickRef = useRef(onPointClick);
  clickRef.current = onPointClick;
  const rangeRef = useRef(onXRange);
  rangeRef.current = onXRange;
  const selectRef = useRef(onSelectX);
  selectRef.current = onSelectX;
  const drawer = useRef<Drawer>({ alive: true, draining: false, next: null, pending: new Set() });

  // Figures are drawn one at a time, the newest last; a newer figure waits at most DRAW_WAIT_MS for Plotly's promise,
  // and a change of traces is drawn afresh (newPlot, not react's diff). An unmounted plot is purged only once its
  // drawings settle: a page left mid-draw threw "t.emit is not a function" when the draw ended on a purged div.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const d = drawer.current;
    d.next = { data, layout: mergeAxes(themeLayout(theme), { height, ...layout }) };
    if (d.draining) return;
    d.draining = true;
    const bind = () => {
      el.on?.('plotly_click', (e: { points: never[] }) => e.points[0] && clickRef.current?.(e.points[0]));
      el.on?.('plotly_relayout', (e: Record<string, unknown>) => {
        const a = e['xaxis.range[0]'] ?? (e['xaxis.range'] as unknown[] | undefined)?.[0];
        const b = e['xaxis.range[1]'] ?? (e['xaxis.range'] as unknown[] | undefined)?.[1];
        if (a !== undefined && b !== undefined) rangeRef.current?.([Number(a), Number(b)]);
        else if (e['xaxis.autorange']) rangeRef.current?.(null);
      });
      el.on?.('plotly_selected', (e: { range?: { x?: [number, number] } } | undefined) => {
        const x = e?.range?.x;
        if (x) selectRef.current?.([Number(x[0]), Number(x[1])]);
      });
    };
    void (async () => {
      try {
        while (d.alive && d.next) {
          const fig = d.next;
          d.next = null;
          // Plotly adds `.on` to the div (and newPlot drops every handler) synchronously, when the call starts.
          const fresh = el.data === undefined || shape(el.data) !== shape(fig.data);
          const drawing = fresh ? Plotly.newPlot(el, fig.data, fig.layout, PLOT_CONFIG) : Plotly.react(el, fig.data, fig.layout, PLOT_CONFIG);
          if (fresh) bind();
          const settled = Promise.resolve(drawing).then(
            () => undefined,
            (e: unknown) => reportError(e),
          );
          d.pending.add(settled);
          void settled.then(() => d.pending.delete(settled));
          await Promise.race([settled, new Promise((r) => setTimeout(r, DRAW_WAIT_MS))]);
        }
      } finally {
        d.draining = false;
      }
    })();
  }, [data, layout, theme, height]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const d = drawer.current;
    d.alive = true;
    const ro = new ResizeObserver(() => {
      if (el.offsetParent !== null) Plotly.Plots.resize(el);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      d.alive = false;
      d.next = null;
      // Not if mounted again meanwhile (React's StrictMode mounts, unmounts and mounts again in development).
      void Promise.all(d.pending).then(() => {
        if (!d.alive) Plotly.purge(el);
      });
    };
  }, []);

  return <div ref={ref} className={className ?? 'plot'} data-testid={testId} />;
}
