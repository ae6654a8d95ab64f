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
    legend: { orientation: 'h', y: -0.18 },
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

export function Plot({ data, layout = {}, className, testId, height = 320, onPointClick, onXRange, onSelectX }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const theme = useSettings((s) => s.theme);
  const clickRef = useRef(onPointClick);
  clickRef.current = onPointClick;
  const rangeRef = useRef(onXRange);
  rangeRef.current = onXRange;
  const selectRef = useRef(onSelectX);
  selectRef.current = onSelectX;

  // One Plotly.react at a time, the newest figure drawn last (as LiveTraces does): with calls overlapping, a results
  // chart once stayed on its previous figure (CI, e2e "let a sweep finish": the compared sweep's curve never showed).
  const drawing = useRef(false);
  const nextDraw = useRef<(() => Promise<unknown>) | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const full = mergeAxes(themeLayout(theme), { height, ...layout });
    nextDraw.current = () => Plotly.react(el, data, full, PLOT_CONFIG);
    if (drawing.current) return;
    drawing.current = true;
    void (async () => {
      try {
        for (let d = nextDraw.current; d; d = nextDraw.current) {
          nextDraw.current = null;
          await d();
        }
      } finally {
        drawing.current = false;
      }
    })();
  }, [data, layout, theme, height]);

  useEffect(() => {
    const el = ref.current as (HTMLDivElement & { on?: (ev: string, cb: (e: never) => void) => void }) | null;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      if (el.offsetParent !== null) Plotly.Plots.resize(el);
    });
    ro.observe(el);
    // Plotly adds `.on` once the first plot exists.
    const t = setTimeout(() => {
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
    }, 0);
    return () => {
      clearTimeout(t);
      ro.disconnect();
      Plotly.purge(el);
    };
  }, []);

  return <div ref={ref} className={className ?? 'plot'} data-testid={testId} />;
}
