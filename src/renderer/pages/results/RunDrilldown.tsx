import { useEffect, useRef, useState } from 'react';
import { useDevices } from '../../state/devices';
import { deviceLabel } from '../../lib/device-label';
import type { PlotData } from 'plotly.js-strict-dist-min';
import type { RunAnalysis } from '../../../shared/analysis';
import type { RunRecord, RunTraces } from '../../../shared/records';
import { FLAG_INFO, sortedFlags } from '../../../shared/analysis-view';
import { Plot } from '../../components/Plot';
import { colorFor, fmt, sig } from '../../lib/format';
import { loadTraces } from './traces';

/** The raw traces of one run: power with its cap, SM clock, temperature, with the measurement window shaded. */
export function RunDrilldown({ run, analysis, onClose }: { run: RunRecord; analysis: RunAnalysis | null; onClose(): void }) {
  const [traces, setTraces] = useState<RunTraces | null>(null);
  const [error, setError] = useState<string | null>(null);
  const devices = useDevices((d) => d.devices);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    setTraces(null);
    loadTraces(run.id, 2000).then(setTraces, (e) => setError((e as Error).message));
    // The drill-down opens below the table, usually out of view: bring it into view.
    ref.current?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }, [run.id]);
  const t0 = run.started_at ?? traces?.devices[0]?.power_w.t[0] ?? 0;
  const rel = (t: number[]) => t.map((x) => x - t0);
  const data: PlotData[] = [];
  traces?.devices.forEach((d, i) => {
    const label = deviceLabel(d.device_id, devices);
    data.push({ type: 'scatter', mode: 'lines', name: `${label} power`, x: rel(d.power_w.t), y: d.power_w.v, line: { color: colorFor(i), width: 1.3 } });
    data.push({ type: 'scatter', mode: 'lines', name: `${label} cap`, x: rel(d.limit_w.t), y: d.limit_w.v, line: { color: colorFor(i), dash: 'dash', width: 1, shape: 'hv' } });
    data.push({ type: 'scatter', mode: 'lines', name: `${label} SM clock`, x: rel(d.sm_clock_mhz.t), y: d.sm_clock_mhz.v, yaxis: 'y2', line: { color: colorFor(i + 2), width: 1 } });
    data.push({ type: 'scatter', mode: 'lines', name: `${label} temperature`, x: rel(d.temp_c.t), y: d.temp_c.v, yaxis: 'y3', line: { color: colorFor(i + 3), width: 1 } });
  });
  if (traces) data.push({ type: 'scatter', mode: 'lines', name: 'throughput', x: rel(traces.throughput.t), y: traces.throughput.v, yaxis: 'y4', line: { color: '#9c755f', width: 1 } });
  const shapes =
    run.measure_start != null && run.measure_end != null
      ? [{ type: 'rect', xref: 'x', yref: 'paper', x0: run.measure_start - t0, x1: run.measure_end - t0, y0: 0, y1: 1, fillcolor: 'rgba(89,161,79,0.12)', line: { width: 0 }, layer: 'below' }]
      : [];
  return (
    <div className="card drill" data-testid="run-drilldown" ref={ref}>
      <header className="page-head">
        <h3>
          r{run.repetition}: {run.workload} at {run.cap_w} W, repetition {run.repetition} <span className="muted small">(run #{run.id} of the database)</span>
        </h3>
        <button onClick={onClose}>Close</button>
      </header>
      {analysis ? (
        // The analysis' figures for this run (node energy at the page's overhead), as in the per-cap statistics.
        <>
          <p className="small muted" data-testid="drill-figures">
            {run.status} · throughput {fmt(analysis.throughput, 1)} {analysis.units ?? run.units}/s per GPU · mean power {fmt(analysis.mean_power_w, 0)} W per GPU · GPU energy {fmt(analysis.gpu_energy_j, 0)} J ({analysis.energy_sensor ?? 'sensor ?'}) · node energy {fmt(analysis.node?.energy_j, 0)} J · efficiency {sig(analysis.efficiency)} {analysis.units ?? run.units}/J · enforced limit {fmt(analysis.enforcement.enforced_limit_w ?? run.enforced_limit_w, 0)} W
            {run.error ? ` · ${run.error}` : ''}
          </p>
          {(analysis.flags.length > 0 || analysis.warnings.length > 0) && (
            <p className="small">
              {sortedFlags(analysis.flags).map((f) => (
                <span key={f} className={`flag flag-${FLAG_INFO[f].severity}`} title={FLAG_INFO[f].meaning}>
                  {FLAG_INFO[f].label}
                </span>
              ))}
              <span className="muted">{analysis.warnings.join(' · ')}</span>
            </p>
          )}
        </>
      ) : (
        <p className="small muted" data-testid="drill-figures">
          {run.status} · throughput {fmt(run.throughput, 1)} {run.units}/s per GPU · mean power {fmt(run.mean_power_w, 0)} W · energy {fmt(run.energy_j, 0)} J ({run.energy_sensor ?? 'sensor ?'}) · efficiency {sig(run.efficiency)} {run.units}/J · enforced limit {fmt(run.enforced_limit_w, 0)} W
          {run.error ? ` · ${run.error}` : ''}
        </p>
      )}
      {error && <p className="error">{error}</p>}
      {!traces && !error && <p className="muted">loading traces…</p>}
      {traces && (
        <Plot
          data={data}
          height={520}
          layout={{
            shapes,
            xaxis: { title: { text: 'time since run start (s)' }, anchor: 'y4' },
            yaxis: { title: { text: 'W' }, domain: [0.76, 1] },
            yaxis2: { title: { text: 'MHz' }, domain: [0.51, 0.73] },
            yaxis3: { title: { text: '°C' }, domain: [0.26, 0.48] },
            yaxis4: { title: { text: 'units/s' }, domain: [0, 0.23] },
            legend: { orientation: 'h', y: 1.12 },
          }}
        />
      )}
    </div>
  );
}
