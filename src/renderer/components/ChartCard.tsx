import { useMemo } from 'react';
import type { ChartSpec } from '../../shared/charts';
import { plotlyFigure } from '../lib/plotly-figure';
import { Plot } from './Plot';

/** A chart spec's title and its Plotly figure (the same specs the printed report draws as SVG). */
export function ChartCard({ spec, testId }: { spec: ChartSpec; testId: string }) {
  const fig = useMemo(() => plotlyFigure(spec), [spec]);
  return (
    <>
      <h3>{spec.title}</h3>
      <Plot testId={testId} data={fig.data} layout={fig.layout} />
    </>
  );
}
