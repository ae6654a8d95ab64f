import type { DatasetAnalysis } from '../../../shared/dataset-analysis';
import { fmt, sig } from '../../lib/format';

/** Each segment's energy by sensor and method, with its stated uncertainty (a systematic sensor bound). */
export function SegmentEnergyTable({ a, t0 }: { a: DatasetAnalysis; t0: number }) {
  return (
    <div className="card" data-testid="segment-energy">
      <h3>Energy by segment</h3>
      <table className="table small">
        <thead>
          <tr>
            <th>#</th>
            <th>From s</th>
            <th>Length s</th>
            <th>Energy J (± stated bound)</th>
            <th>Mean W</th>
            <th>Sensor · method</th>
            <th>Units/J</th>
            <th>Units/J counts</th>
          </tr>
        </thead>
        <tbody>
          {a.segments.map(({ segment: s, energy: e, efficiency, efficiency_basis, efficiency_gpu_only }) => (
            <tr key={s.id} data-testid="segment-energy-row" data-segment={s.id}>
              <td>{s.id}</td>
              <td>{fmt(s.start - t0, 1)}</td>
              <td>{fmt(s.end - s.start, 1)}</td>
              <td title={e.uncertainty_basis}>
                <span data-testid="energy-j">{fmt(e.energy_j, 0)}</span>
                {e.uncertainty_j != null && (
                  <span className="muted">
                    {' '}
                    ± <span data-testid="uncertainty-j">{fmt(e.uncertainty_j, 0)}</span>
                  </span>
                )}
              </td>
              <td>{fmt(e.mean_w, 1)}</td>
              <td>
                {e.sensor ?? '–'} · {[...new Set(e.devices.map((d) => d.method).filter(Boolean))].join(', ') || '–'}
              </td>
              <td>{sig(efficiency, 4)}</td>
              <td className="small muted" data-testid="efficiency-basis">
                {efficiency_basis || '–'}
                {efficiency_gpu_only != null && efficiency_gpu_only !== efficiency && ` (${sig(efficiency_gpu_only, 4)} without it)`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">
        ± is a systematic sensor bound, not a statistical confidence interval: NVML’s stated accuracy (the larger of 5 W and 5 % of the reading) over the segment, plus the method’s own
        (2 % for 1 s average power over segments of at least 8 s, more below), added over the GPUs as a worst case. Hover a value for its basis.
      </p>
    </div>
  );
}
