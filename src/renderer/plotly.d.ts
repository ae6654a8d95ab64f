// Minimal typings for the strict (CSP-safe) Plotly bundle: only what CapLab calls.
declare module 'plotly.js-strict-dist-min' {
  export type Datum = number | string | null;
  export interface PlotData {
    type?: 'scatter' | 'bar';
    mode?: string;
    name?: string;
    x?: Datum[] | ArrayLike<number>;
    y?: Datum[] | ArrayLike<number>;
    line?: { color?: string; width?: number; dash?: string; shape?: string };
    marker?: { color?: string | string[]; size?: number | number[]; symbol?: string | string[]; line?: { color?: string; width?: number } };
    error_y?: { type: 'data'; array: (number | null)[]; visible: boolean; color?: string; thickness?: number; width?: number };
    showlegend?: boolean;
    legendgroup?: string;
    hovertemplate?: string;
    text?: string[] | string;
    textposition?: string;
    xaxis?: string;
    yaxis?: string;
    connectgaps?: boolean;
    fill?: string;
    opacity?: number;
    [k: string]: unknown;
  }
  export type Layout = Record<string, unknown>;
  export type Config = Record<string, unknown>;
  export function newPlot(el: HTMLElement, data: PlotData[], layout?: Layout, config?: Config): Promise<HTMLElement>;
  export function react(el: HTMLElement, data: PlotData[], layout?: Layout, config?: Config): Promise<HTMLElement>;
  export function purge(el: HTMLElement): void;
  export const Plots: { resize(el: HTMLElement): void };
  const Plotly: {
    newPlot: typeof newPlot;
    react: typeof react;
    purge: typeof purge;
    Plots: typeof Plots;
  };
  export default Plotly;
}
