import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Layout, PlotData } from 'plotly.js-strict-dist-min';
import { DatasetDeviceKind, deviceKindWords, type DatasetRecord } from '../../shared/dataset';
import type { AnalysisGroup, AnalysisResult } from '../../shared/analysis';
import type { DatasetAnalysis } from '../../shared/dataset-analysis';
import { SegmentEnergyTable } from './datasets/SegmentEnergyTable';
import { efficiencyChart, paretoChart } from '../../shared/charts';
import { ChartCard } from '../components/ChartCard';
import type { MethodOutput } from '../../shared/api';
import { api, isNotFound } from '../api/client';
import { NotStored } from '../components/EmptyState';
import { Plot } from '../components/Plot';
import { ExportMenu } from '../components/ExportMenu';
import { ImportDrop } from './datasets/ImportDrop';
import { SegmentsTable } from './datasets/SegmentsTable';
import { OverlayPicksBar } from './overlay/OverlayPicks';
import { bestCapText, colorFor, count, dateTime, fmt, timeSpan } from '../lib/format';
import { segmentDecorations } from '../lib/dataset-view';
import { navigate } from '../lib/route';
import { isIdParam } from '../lib/routes';
import { toastError } from '../state/toasts';

type Trace = MethodOutput<'getDatasetTrace'>;

const span = (d: DatasetRecord) => (d.t_start !== null && d.t_end !== null ? d.t_end - d.t_start : null);

/** A device kind in words: a node-level series says it holds GPU + CPU power, not a GPU's. */
function kindWords(kind: string): string {
  const k = DatasetDeviceKind.safeParse(kind);
  return k.success ? deviceKindWords[k.data] : kind;
}

export function DatasetsPage({ param }: { param: string | null }) {
  if (param !== null && !isIdParam(param))
    return (
      <section className="page">
        <h2>Datasets</h2>
        <NotStored what="dataset" id={param} list="datasets" />
      </section>
    );
  return param ? <DatasetDetail id={Number(param)} /> : <DatasetList />;
}

function DatasetList() {
  const [list, setList] = useState<DatasetRecord[] | null>(null);
  const load = useCallback(() => void api.listDatasets({}).then(setList, toastError), []);
  useEffect(load, [load]);
  return (
    <section className="page" aria-labelledby="datasets-title">
      <header className="page-head">
        <h2 id="datasets-title">Datasets</h2>
      </header>
      <ImportDrop onImported={(d) => (d ? navigate('datasets', d.id) : load())} />
      <DatasetTable list={list ?? []} />
      {list && list.length === 0 && <p className="muted">No datasets yet: drop power logs above, or run `caplab import PATH`.</p>}
    </section>
  );
}

export function DatasetTable({ list }: { list: readonly DatasetRecord[] }) {
  return (
    <table className="table" data-testid="datasets-table">
      <thead>
        <tr>
          <th>#</th>
          <th>Name</th>
          <th>Format</th>
          <th>Devices</th>
          <th>Samples</th>
          <th>From</th>
          <th>Length</th>
          <th>Segments</th>
        </tr>
      </thead>
      <tbody>
        {list.map((d) => (
          <tr key={d.id} data-testid="dataset-row">
            <td>{d.id}</td>
            <td>
              <button className="link" onClick={() => navigate('datasets', d.id)}>
                {d.name}
              </button>
            </td>
            <td>{d.format}</td>
            <td>{d.devices.length}</td>
            <td>{d.samples.toLocaleString('en')}</td>
            <td>{dateTime(d.t_start)}</td>
            <td>{span(d) === null ? '–' : `${fmt(span(d)! / 60, 1)} min`}</td>
            <td>{d.segments.length}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DatasetDetail({ id }: { id: number }) {
  const [ds, setDs] = useState<DatasetRecord | null>(null);
  const [trace, setTrace] = useState<Trace | null>(null);
  // The range whose trace is being read from the store (null: none in flight): a 10 M-sample dataset takes a moment.
  const [loading, setLoading] = useState(false);
  const [range, setRange] = useState<[number, number] | null>(null);
  const [brush, setBrush] = useState(false);
  const [analysis, setAnalysis] = useState<DatasetAnalysis | null>(null);

  const [missing, setMissing] = useState(false);
  useEffect(() => {
    setMissing(false);
    void api.getDataset({ dataset_id: id }).then(setDs, (e) => (isNotFound(e) ? setMissing(true) : toastError(e)));
  }, [id]);
  // Re-queried on every zoom: the store decimates the visible range to ~2,000 points per device.
  useEffect(() => {
    let stale = false;
    setLoading(true);
    api
      .getDatasetTrace({ dataset_id: id, max_points: 2000, ...(range ? { from: range[0], to: range[1] } : {}) })
      .then(
        (t) => !stale && setTrace(t),
        // A dataset that is not stored is said once, by the page; other failures are toasted.
        (e) => !stale && !isNotFound(e) && toastError(e),
      )
      .finally(() => !stale && setLoading(false));
    return () => {
      stale = true;
    };
  }, [id, range]);

  const t0 = ds?.t_start ?? 0;
  const data = useMemo<PlotData[]>(
    () =>
      (trace?.devices ?? [])
        .filter((d) => d.power_w.t.length > 0)
        .map((d, i) => ({ type: 'scatter', mode: 'lines', name: d.name === d.device_id ? d.name : `${d.name} (${d.device_id.replace(/^.*\//, '')})`, x: d.power_w.t.map((t) => t - t0), y: d.power_w.v, line: { width: 1, color: colorFor(i) } }) as PlotData),
    [trace, t0],
  );
  const layout = useMemo<Layout>(
    () => ({
      xaxis: { title: { text: 's since start' }, ...(range ? { range: [range[0] - t0, range[1] - t0] } : { autorange: true }) },
      yaxis: { title: { text: 'power W' } },
      dragmode: brush ? 'select' : 'zoom',
      selectdirection: 'h',
      ...segmentDecorations(ds?.segments ?? [], t0, range),
      showlegend: true,
    }),
    [ds, range, brush, t0],
  );

  async function addSegment(x: [number, number]) {
    try {
      const r = await api.saveSegment({ dataset_id: id, start: x[0] + t0, end: x[1] + t0, origin: 'brush', label: `window ${fmt(x[0], 0)}-${fmt(x[1], 0)} s` });
      setDs((d) => d && { ...d, segments: r.segments });
      setBrush(false);
    } catch (e) {
      toastError(e);
    }
  }

  async function analyse() {
    try {
      setAnalysis(await api.analyzeDataset({ dataset_id: id }));
    } catch (e) {
      toastError(e);
    }
  }

  if (missing)
    return (
      <section className="page">
        <h2>Datasets</h2>
        <NotStored what="dataset" id={String(id)} list="datasets" />
      </section>
    );
  if (!ds) return <section className="page">Loading dataset #{id}…</section>;
  const visible = trace ? trace.devices.reduce((n, d) => n + d.power_w.t.length, 0) : 0;
  return (
    <section className="page" aria-labelledby="dataset-title">
      <header className="page-head">
        <h2 id="dataset-title">
          Dataset #{ds.id} · {ds.name}
        </h2>
        <div className="row">
          <ExportMenu subject="dataset" request={{ dataset_id: ds.id }} />
          <button onClick={() => navigate('datasets')}>
            All datasets
          </button>
        </div>
      </header>
      <p className="muted" data-testid="dataset-facts">
        {ds.format} · {count(ds.samples, 'sample')} · {count(ds.devices.length, 'device')} ·{' '}
        {/* Profiles without a wall clock (NLR aggregated) are seconds from their start, not 1970. */}
        {ds.report?.clock === 'relative' ? `${fmt(ds.t_start ?? 0, 1)} – ${fmt(ds.t_end ?? 0, 1)} s (no wall clock)` : `${timeSpan(ds.t_start, ds.t_end)}, ${ds.timezone ?? 'zone unknown'}`} ·{' '}
        {count(ds.files.length, 'file')}
      </p>
      <div className="row">
        <button className={brush ? 'primary small' : 'small'} onClick={() => setBrush((b) => !b)} data-testid="brush-toggle">
          {brush ? 'Drag on the trace to add a segment…' : 'Brush a segment'}
        </button>
        <button className="small" onClick={() => setRange(null)} disabled={!range}>
          Reset zoom
        </button>
        <span className="muted small" data-testid="trace-points" aria-busy={loading}>
          {loading ? 'reading the trace from the store… · ' : ''}
          {visible.toLocaleString('en')} points shown of {ds.samples.toLocaleString('en')} samples{trace ? ` · ${fmt(trace.to - trace.from, 0)} s visible` : ''}
        </span>
      </div>
      <Plot data={data} layout={layout} height={360} testId="dataset-trace" onXRange={(r) => setRange(r ? [r[0] + t0, r[1] + t0] : null)} onSelectX={(x) => void addSegment(x)} />
      <h3>Segments</h3>
      <SegmentsTable dataset={ds} t0={t0} onChange={(segments) => setDs({ ...ds, segments })} />
      <OverlayPicksBar />
      <div className="row">
        <button className="small" onClick={() => void analyse()} data-testid="analyse-segments">
          Analyse segments: energy, and per-cap curves where cap and units are set
        </button>
      </div>
      {analysis && <SegmentEnergyTable a={analysis} t0={t0} />}
      {analysis?.sweep && <AnalysisSummary a={analysis.sweep} name={ds.name} />}
      <h3>Devices</h3>
      <table className="table" data-testid="dataset-devices">
        <thead>
          <tr>
            <th>Key</th>
            <th>Kind</th>
            <th>Name</th>
          </tr>
        </thead>
        <tbody>
          {ds.devices.map((d) => (
            <tr key={d.id}>
              <td>{d.key.replace(/^dataset:\d+\//, '')}</td>
              <td>{kindWords(d.kind)}</td>
              <td>{d.name}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {ds.report && (
        <p className="muted small">
          Import: {ds.report.rows_read.toLocaleString('en')} rows read, {ds.report.rows_skipped} skipped
          {ds.report.skipped.map((s) => ` · ${s.count}× ${s.reason}`).join('')} · power columns:{' '}
          {ds.report.columns
            .filter((c) => c.sensor_kind)
            .map((c) => `${c.source} (${c.sensor_kind})`)
            .join(', ') || 'none'}
        </p>
      )}
    </section>
  );
}

function AnalysisSummary({ a, name }: { a: AnalysisResult; name: string }) {
  return (
    <div data-testid="dataset-analysis">
      {a.groups.map((g) => (
        <GroupAnalysis key={`${g.workload}-${g.device_model}`} g={g} name={name} />
      ))}
    </div>
  );
}

/** A workload's segments analysed as a sweep's runs: best caps, Pareto, and the per-cap curves the results page draws. */
function GroupAnalysis({ g, name }: { g: AnalysisGroup; name: string }) {
  const inputs = useMemo(() => [{ name, group: g }], [g, name]);
  const eff = useMemo(() => efficiencyChart(inputs), [inputs]);
  const par = useMemo(() => paretoChart(inputs), [inputs]);
  return (
    <>
      <p>
        <strong>{g.workload}</strong> on {g.device_model}: best cap{' '}
        {Object.values(g.optima).map((o) => `${o.selector} ${bestCapText(o.cap_w)}`).join(' · ')}; Pareto {g.pareto.front.map((p) => `${p.cap_w} W`).join(', ') || '–'}
      </p>
      <div className="plots">
        <div className="card">
          <ChartCard spec={eff} testId="dataset-efficiency" />
        </div>
        <div className="card">
          <ChartCard spec={par} testId="dataset-pareto" />
        </div>
      </div>
    </>
  );
}
