import { useEffect, useMemo, useState } from 'react';
import type { FacilityResult, FacilitySeriesSlice } from '../../shared/facility';
import type { MethodInput, MethodOutput } from '../../shared/api';
import { reportDocumentFormats, type ReportDocumentFormat } from '../../shared/exports';
import { api, onEvent } from '../api/client';
import { ProgressBar } from '../components/Badges';
import { Plot } from '../components/Plot';
import { comparisonTraces, eventShapes, eventTraces, ldcTraces, resolutionLabel, seriesTraces, sliceTraces, summaryHeaders, summaryRows, zoomRange, type Zoom } from '../lib/facility-view';
import { EVENT_HEADERS, eventCells, GRID_HEADERS, gridCells, targetOf } from '../../shared/facility-format';
import { toast, toastError } from '../state/toasts';
import { exportedMessage, saveFile } from '../lib/save-file';

type Configs = MethodOutput<'listFacilityConfigs'>;

/** Legend under the x-axis title, not on it. */
const BELOW = { legend: { orientation: 'h' as const, y: -0.3 }, margin: { l: 56, r: 16, t: 28, b: 76 } };

/** Facility planner: a config (shipped NLR reconstructions or edited YAML) run through the engine, results plotted. */
export function FacilityPage() {
  const [configs, setConfigs] = useState<Configs>([]);
  const [yaml, setYaml] = useState('');
  const [chosen, setChosen] = useState('');
  const [replicas, setReplicas] = useState(4);
  const [horizon, setHorizon] = useState<number | ''>('');
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number; label: string } | null>(null);
  const [result, setResult] = useState<FacilityResult | null>(null);
  // What the shown result was run with: the report runs exactly that again (same seed, same numbers).
  const [ran, setRan] = useState<MethodInput<'runFacility'> | null>(null);
  const [reporting, setReporting] = useState<ReportDocumentFormat | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [scenario, setScenario] = useState(0);
  const [level, setLevel] = useState(0);
  const [zoom, setZoom] = useState<Zoom>('all');
  const [zoomFrom, setZoomFrom] = useState<number | undefined>(undefined);
  // The zoomed window at full resolution, from the engine (it keeps the run's series; the page gets only the window).
  const [slice, setSlice] = useState<FacilitySeriesSlice | null>(null);
  // A window dragged on the plot (the brush): fetched at full resolution like the buttons' day and week.
  const [drag, setDrag] = useState<[number, number] | null>(null);

  useEffect(() => {
    api
      .listFacilityConfigs({})
      .then((c) => {
        setConfigs(c);
        if (c[0]) {
          setChosen(c[0].name);
          setYaml(c[0].yaml);
        }
      })
      .catch(toastError);
    return onEvent('facility.progress', setProgress);
  }, []);

  async function run() {
    setRunning(true);
    setError(null);
    setProgress(null);
    try {
      const input = { yaml, replicas, ...(horizon === '' ? {} : { horizon_days: horizon }) };
      const r = await api.runFacility(input);
      setResult(r);
      setRan(input);
      setScenario(0);
      setLevel(Math.min(level, r.levels.length - 1));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (msg.includes('facility run cancelled')) toast('info', 'Facility run cancelled');
      else setError(msg);
    } finally {
      setRunning(false);
    }
  }

  async function cancel() {
    try {
      await api.cancelFacility({});
    } catch (e) {
      toastError(e);
    }
  }

  async function report(format: ReportDocumentFormat) {
    if (!ran) return;
    setReporting(format);
    setProgress(null);
    try {
      const f = await api.facilityReport({ ...ran, format });
      saveFile(f.filename, f.mime, f.data_base64);
      toast('ok', exportedMessage(f));
    } catch (e) {
      if (e instanceof Error && e.message.includes('facility run cancelled')) toast('info', 'Facility report cancelled');
      else toastError(e);
    } finally {
      setReporting(null);
    }
  }

  const sc = result?.scenarios[scenario];
  const lv = sc?.levels[level];
  const series = useMemo(() => (lv ? seriesTraces(lv) : []), [lv]);
  const range = useMemo(() => drag ?? (lv ? zoomRange(lv, zoom, zoomFrom) : null), [drag, lv, zoom, zoomFrom]);
  const seriesKey = result?.series_key;
  const scName = sc?.name;
  const r0 = range?.[0];
  const r1 = range?.[1];
  useEffect(() => {
    setSlice(null);
    if (r0 === undefined || r1 === undefined || !seriesKey || scName === undefined) return;
    let live = true;
    api
      .facilitySeries({ series_key: seriesKey, scenario: scName, target_index: level, from_h: Math.max(0, r0 * 24), to_h: Math.max(r1, r0 + 1e-3) * 24 })
      .then((z) => live && setSlice(z))
      .catch(toastError);
    return () => {
      live = false;
    };
  }, [seriesKey, scName, level, r0, r1]);
  /** The arrows move the window by its width: a dragged one as it is, the buttons' within the horizon. */
  function shift(dir: -1 | 1) {
    if (!range) return;
    const w = range[1] - range[0];
    if (drag) setDrag([Math.max(0, drag[0] + dir * w), Math.max(0, drag[0] + dir * w) + w]);
    else setZoomFrom(dir < 0 ? Math.max(0, range[0] - w) : range[1]);
  }
  const shown = useMemo(() => (slice ? sliceTraces(slice) : series), [slice, series]);
  const resolution = slice ? resolutionLabel(slice.bucket_s, slice.step_s) : lv ? resolutionLabel(Math.round((lv.series.t_h[1] ?? 1) * 3600), result?.step_s ?? 60) : '';
  const ldc = useMemo(() => (sc ? ldcTraces(sc.levels) : []), [sc]);
  const compare = useMemo(() => (result ? comparisonTraces(result) : []), [result]);
  const rows = useMemo(() => (result ? summaryRows(result) : []), [result]);

  return (
    <section className="page" aria-labelledby="facility-title">
      <header className="page-head">
        <h2 id="facility-title">Facility planner</h2>
        <span className="muted small">Measured node profiles scaled to a whole site: event-driven jobs or services, seeded replicas.</span>
      </header>
      <div className="designer-grid">
        <div className="card">
          <label className="field">
            <span>Configuration (YAML; relative paths are read from resources/facility)</span>
            <textarea className="mono" rows={14} value={yaml} onChange={(e) => setYaml(e.target.value)} data-testid="facility-yaml" spellCheck={false} />
          </label>
        </div>
        <div className="card">
          <label className="field">
            <span>Shipped configs</span>
            <select
              value={chosen}
              data-testid="facility-config"
              onChange={(e) => {
                setChosen(e.target.value);
                setYaml(configs.find((c) => c.name === e.target.value)?.yaml ?? '');
              }}
            >
              {configs.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Replicas (seeds)</span>
            <input type="number" min={1} max={64} value={replicas} onChange={(e) => setReplicas(Math.max(1, Math.min(64, Number(e.target.value) || 1)))} data-testid="facility-replicas" />
          </label>
          <label className="field">
            <span>Horizon days (blank: the config's)</span>
            <input type="number" min={1} max={366} value={horizon} onChange={(e) => setHorizon(e.target.value === '' ? '' : Math.max(1, Math.min(366, Number(e.target.value))))} data-testid="facility-horizon" />
          </label>
          <p className="facility-actions">
            <button className="primary" onClick={() => void run()} disabled={running || reporting !== null || yaml.trim() === ''} data-testid="facility-run">
              {running ? 'Running…' : 'Run'}
            </button>{' '}
            {reportDocumentFormats.map((f) => (
              <button key={f} className="small" onClick={() => void report(f)} disabled={!ran || running || reporting !== null} data-testid={`facility-report-${f}`}>
                {reporting === f ? 'Making the report…' : `Report (${f.toUpperCase()})`}
              </button>
            ))}
            {(running || reporting !== null) && (
              <button className="small" onClick={() => void cancel()} data-testid="facility-cancel">
                Cancel
              </button>
            )}
          </p>
          {(running || reporting) && progress && (
            <div className="facility-progress" data-testid="facility-progress">
              <ProgressBar fraction={progress.done / progress.total} label="facility progress" />
              <span className="muted small">{progress.label}</span>
            </div>
          )}
          {result && !running && (
            <p className="muted small" data-testid="facility-done">
              {result.name}: {result.nodes} nodes, {result.horizon_days} days at {result.step_s} s, {result.elapsed_s.toFixed(1)} s
            </p>
          )}
        </div>
      </div>
      {error && (
        <pre className="error" role="alert" data-testid="facility-error">
          {error}
        </pre>
      )}
      {result && sc && lv && (
        <>
          <table className="table" data-testid="facility-summary">
            <thead>
              <tr>
                <th>scenario</th>
                <th>target</th>
                {summaryHeaders(result).map((h) => (
                  <th key={h}>{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.scenario}-${r.target}`}>
                  <td>{r.scenario}</td>
                  <td>{r.target}</td>
                  {r.cells.map((c, i) => (
                    <td key={i}>{c}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <div className="row">
            <div className="segmented" role="tablist" aria-label="Scenario">
              {result.scenarios.map((s, i) => (
                <button key={s.name} className={i === scenario ? 'on' : ''} onClick={() => setScenario(i)}>
                  {s.name}
                </button>
              ))}
            </div>{' '}
            <div className="segmented" role="tablist" aria-label="Target utilisation">
              {sc.levels.map((l, i) => (
                <button key={l.target_utilization} className={i === level ? 'on' : ''} onClick={() => setLevel(i)}>
                  {Math.round(l.target_utilization * 100)} %
                </button>
              ))}
            </div>
          </div>
          <div className="row">
            <div className="segmented" role="tablist" aria-label="Zoom" data-testid="facility-zoom">
              {(['all', 'week', 'day'] as const).map((z) => (
                <button
                  key={z}
                  className={z === zoom ? 'on' : ''}
                  onClick={() => {
                    setZoom(z);
                    setZoomFrom(undefined);
                    setDrag(null);
                  }}
                >
                  {z === 'all' ? 'Whole horizon' : z === 'week' ? 'Week' : 'Day'}
                </button>
              ))}
            </div>{' '}
            {range && (
              <>
                <button className="small" aria-label="Earlier" onClick={() => shift(-1)}>
                  ←
                </button>{' '}
                <button className="small" aria-label="Later" onClick={() => shift(1)}>
                  →
                </button>{' '}
                <span className="muted small" data-testid="facility-zoom-range">
                  days {range[0].toFixed(1)}–{range[1].toFixed(1)}
                </span>{' '}
                <span className="muted small" data-testid="facility-zoom-resolution">
                  {slice ? `${slice.it_w.length.toLocaleString('en-US')} points, ${resolution}` : 'loading the full-resolution window…'}
                </span>
              </>
            )}
          </div>
          <div className="plots">
            <div className="card">
              <Plot
                testId="facility-series"
                data={shown as never}
                onXRange={setDrag}
                layout={{
                  ...BELOW,
                  title: { text: `${sc.name}, ${Math.round(lv.target_utilization * 100)} %: power (${resolution})` },
                  xaxis: { title: { text: 'day' }, ...(range ? { range, autorange: false } : { autorange: true }) },
                  yaxis: { title: { text: 'MW' } },
                  shapes: eventShapes(lv) as never,
                }}
              />
            </div>
            <div className="card">
              <Plot
                testId="facility-ldc"
                data={ldc as never}
                layout={{ ...BELOW, title: { text: `${sc.name}: load-duration curve (IT)` }, xaxis: { title: { text: '% of time exceeded' } }, yaxis: { title: { text: 'MW' } } }}
              />
            </div>
            <div className="card">
              <Plot
                testId="facility-compare"
                data={compare as never}
                layout={{ title: { text: 'Scenarios: mean and peak IT power' }, barmode: 'group', xaxis: { title: { text: 'target utilisation' } }, yaxis: { title: { text: 'MW' } } }}
              />
            </div>
            {lv.grid?.events.map((e, i) => (
              <div className="card" key={i}>
                <Plot
                  testId={`facility-event-${i}`}
                  data={eventTraces(e) as never}
                  layout={{ ...BELOW, title: { text: `${e.name}: reduction below the baseline` }, xaxis: { title: { text: 'hour' } }, yaxis: { title: { text: 'MW' } } }}
                />
              </div>
            ))}
          </div>
          {sc.levels.some((l) => l.grid) && (
            <div className="card" data-testid="facility-grid">
              <h3>Grid: {sc.name} (replica 1; power above is after the response)</h3>
              <table className="table">
                <thead>
                  <tr>
                    <th>target</th>
                    {GRID_HEADERS.map((h) => (
                      <th key={h}>{h}</th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {sc.levels
                    .filter((l) => l.grid)
                    .map((l) => (
                      <tr key={l.target_utilization}>
                        <td>{targetOf(l)}</td>
                        {gridCells(l.grid!).map((c, i) => (
                          <td key={i}>{c}</td>
                        ))}
                      </tr>
                    ))}
                </tbody>
              </table>
              <table className="table" data-testid="facility-events">
                <thead>
                  <tr>
                    <th>target</th>
                    {EVENT_HEADERS.map((h) => (
                      <th key={h}>{h}</th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {sc.levels.flatMap((l) =>
                    (l.grid?.events ?? []).map((e, i) => (
                      <tr key={`${l.target_utilization}-${i}`}>
                        <td>{targetOf(l)}</td>
                        {eventCells(e, result.currency).map((c, k) => (
                          <td key={k}>{c}</td>
                        ))}
                      </tr>
                    )),
                  )}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
