import { TuneReport } from '../components/TuneReport';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { takePendingCompare } from '../state/history';
import type { AnalysisFlag, AnalysisGroup, AnalysisResult, CapPoint, Selector } from '../../shared/analysis';
import type { RunRecord, SweepRecord } from '../../shared/records';
import { api, isNotFound } from '../api/client';
import { Plot } from '../components/Plot';
import { SimBadge, StatusBadge } from '../components/Badges';
import { CheckField, NumberField, SelectField } from '../components/Fields';
import { ExportMenu } from '../components/ExportMenu';
import { ChartCard } from '../components/ChartCard';
import { cardNote, FLAG_INFO, flagDetail, groupLabel, matchGroup, nearestOverhead, noAnswerText, optimumValue, rangeText, SELECTOR_ORDER, selectorTitle, sortedFlags } from '../../shared/analysis-view';
import { bestCapText, dateTime, fmt, sig } from '../lib/format';
import { seriesColor } from '../../shared/format';
import { MAX_COMPARED } from '../../shared/export';
import { navigate } from '../lib/route';
import { isIdParam } from '../lib/routes';
import { useHistory } from '../state/history';
import { useSweep } from '../state/sweep';
import { plotlyFigure } from '../lib/plotly-figure';
import { clockChart, efficiencyChart, paretoChart, sensitivityChart, throughputChart, type ChartInput } from '../../shared/charts';
import { RunDrilldown } from './results/RunDrilldown';
import { NoSweepsYet, NotStored } from '../components/EmptyState';
import { useAnalysis, type AnalysisKind, type AnalysisQuery } from './results/use-analysis';
import { CostCard, pageTariff, TariffFields, type TariffText } from './results/CostCard';
import type { DatasetRecord } from '../../shared/dataset';
import { analysableSegments } from '../../shared/dataset-analysis';
import { OverlayPick, OverlayPicksBar } from './overlay/OverlayPicks';

interface Loaded {
  sweep: SweepRecord;
  runs: RunRecord[];
  /** A tuning session (its status stored), ended or interrupted: its outcome is an export of its own. */
  tuning: boolean;
}

/** The sweep record and its runs (plan, status, per-run drill-down); refetched as runs finish. */
function useSweepData(id: number | null): { data: Loaded | null; error: string | null; missing: boolean } {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState<number | null>(null);
  const finished = useSweep((s) => (s.activeId === id ? s.finished : null));
  const runsDone = useSweep((s) => (s.activeId === id ? s.runs.length : 0));
  useEffect(() => {
    if (id == null) return;
    let stale = false;
    Promise.all([api.getSweep({ sweep_id: id }), api.getTuneStatus({ sweep_id: id })]).then(
      ([r, tune]) => !stale && (setData({ ...r, tuning: tune !== null }), setError(null), setMissing(null)),
      (e) => !stale && (setError((e as Error).message), setMissing(isNotFound(e) ? id : null)),
    );
    return () => {
      stale = true;
    };
  }, [id, finished, runsDone]);
  return { data: data && data.sweep.id === id ? data : null, error, missing: id != null && missing === id };
}

/** Changes when the stored runs change: the analysis is asked again then. */
const revisionOf = (d: Loaded | null) => (d ? `${d.sweep.status}:${d.runs.filter((r) => r.status !== 'pending' && r.status !== 'running').length}` : null);

const SELECTOR_OPTIONS = SELECTOR_ORDER.map((s) => ({ value: s, label: s }));

export function ResultsPage({ param }: { param: string | null }) {
  const { sweeps, load } = useHistory();
  useEffect(() => void load(), [load]);
  const latest = sweeps.find((s) => s.runs_done > 0)?.id ?? sweeps[0]?.id ?? null;
  const badParam = param !== null && !isIdParam(param);
  const id = badParam ? null : param !== null ? Number(param) : latest;
  const { data, error, missing } = useSweepData(id);
  // What the page compares with, in order: sweep ids ("3") and datasets ("dataset:2").
  const [compareWith, setCompareWith] = useState(takePendingCompare);
  const [compared, setCompared] = useState<Record<string, ComparedState>>({});
  const onCompared = useCallback((entry: string, st: ComparedState | null) => setCompared((m) => (st ? { ...m, [entry]: st } : Object.fromEntries(Object.entries(m).filter(([k]) => k !== entry)))), []);
  const datasets = useAnalysableDatasets();
  const [overhead, setOverhead] = useState<number | null>(null);
  const [selector, setSelector] = useState<Selector>('max-efficiency');
  const [slowdownPct, setSlowdownPct] = useState(10);
  const [weight, setWeight] = useState(0.5);
  const [includeUnenforced, setIncludeUnenforced] = useState(false);
  // Kept across sweeps (a site's tariff is the same for all of them); empty: nothing priced.
  const [tariffText, setTariffText] = useState<TariffText>({ price: '', carbon: '', currency: '' });
  const tariff = pageTariff(tariffText);
  const [drill, setDrill] = useState<RunRecord | null>(null);

  useEffect(() => {
    setOverhead(null);
    setDrill(null);
  }, [id]);

  const planOverhead = data?.sweep.plan.overhead_w ?? 100;
  const ov = overhead ?? planOverhead;
  const query: AnalysisQuery = { overhead_w: data ? ov : null, selector, slowdown_budget: slowdownPct / 100, weight, include_unenforced: includeUnenforced, tariff };
  const analysis = useAnalysis(data ? id : null, query, revisionOf(data));
  // The page's own sweep is never compared with itself (picked on History, then the Sweep picker moved to it).
  const entries = useMemo(() => compareWith.filter((e) => e !== String(id)), [compareWith, id]);
  const compareTo = useMemo(() => entries.flatMap((e) => compared[e]?.compare ?? []), [entries, compared]);

  if (badParam || missing) {
    return (
      <section className="page">
        <h2>Results</h2>
        <NotStored what="sweep" id={badParam ? (param ?? '') : String(id)} list="history" />
      </section>
    );
  }
  if (id == null) {
    return (
      <section className="page">
        <h2>Results</h2>
        <NoSweepsYet what="results" />
      </section>
    );
  }
  const gpus = data?.sweep.plan.devices.length ?? 1;
  const result = analysis.result?.sweep_id === id ? analysis.result : null;
  // The page's own sweep is never compared with itself (picked on History, then the Sweep picker moved to it).
  const comparedSweeps = entries.filter((e) => !e.startsWith('dataset:')).map(Number);
  const pickable = (exclude: readonly string[]) => compareOptions(sweeps, datasets, [String(id), ...exclude]);
  return (
    <section className="page results" aria-labelledby="results-title">
      <header className="page-head">
        <h2 id="results-title">
          Results · sweep #{id} {data && <span className="muted">{data.sweep.name}</span>}
        </h2>
        <div className="row wrap">
          {data?.sweep.simulated && <SimBadge />}
          {data && <StatusBadge status={data.sweep.status} />}
          <label className="field">
            <span>Sweep</span>
            <select value={id} onChange={(e) => navigate('results', e.target.value)} data-testid="results-sweep">
              {sweeps.map((s) => (
                <option key={s.id} value={s.id}>
                  #{s.id} {s.name} ({s.status})
                </option>
              ))}
            </select>
          </label>
          {data && (
            <ExportMenu
              subject={comparedSweeps.length ? 'compare' : 'sweep'}
              // The tuning outcome is offered where there is one (an interrupted session's too: its last stage); a
              // sweep that is not a tuning session has none.
              omit={data.tuning ? [] : ['tune-csv']}
              request={{ sweep_id: id, compare_ids: comparedSweeps.length ? comparedSweeps : undefined, overhead_w: ov, selector, slowdown_budget: slowdownPct / 100, weight, include_unenforced: includeUnenforced, ...(tariff ? { tariff } : {}) }}
            />
          )}
          <label className="field">
            <span>Compare with</span>
            {/* The first compared; changing it replaces that one, "—" drops it. */}
            <select value={entries[0] ?? ''} onChange={(e) => setCompareWith([...(e.target.value ? [e.target.value] : []), ...entries.slice(1)])} data-testid="results-compare">
              <option value="">—</option>
              {pickable(entries.slice(1))}
            </select>
          </label>
          {entries.length > 0 && entries.length < MAX_COMPARED && (
            <label className="field">
              <span>and also</span>
              <select value="" onChange={(e) => e.target.value && setCompareWith([...entries, e.target.value])} data-testid="results-compare-add">
                <option value="">add…</option>
                {pickable(entries)}
              </select>
            </label>
          )}
        </div>
      </header>
      {data && <TuneReport text={data.sweep.tune_report} open />}
      {entries.length > 0 && (
        <ul className="compare-chips" data-testid="compare-chips" aria-label="Compared with">
          {entries.map((e, i) => {
            const st = compared[e];
            return (
              <li key={e} className="chip compare-chip" data-testid="compare-chip" data-entry={e}>
                <span className="swatch" style={{ background: seriesColor(i + 1) }} aria-hidden />
                {st?.label ?? e}
                {st?.compare && st.compare.status !== 'done' && st.compare.status !== null && <span className="badge status-mark">{st.compare.status}</span>}
                <button className="link small" onClick={() => setCompareWith(entries.filter((x) => x !== e))} aria-label={`Stop comparing with ${st?.label ?? e}`} data-testid="compare-remove">
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {entries.map((e) => (
        <ComparedLoader key={e} entry={e} query={query} datasets={datasets} onChange={onCompared} />
      ))}
      {error && <p className="error">{error}</p>}
      {data && (
        <>
          <div className="analysis-controls card" data-testid="analysis-controls">
            <div className="overhead row">
              <label htmlFor="overhead-slider">
                Node overhead <strong data-testid="overhead-value">{ov} W</strong>
              </label>
              <input id="overhead-slider" type="range" min={0} max={400} step={10} value={ov} onChange={(e) => setOverhead(Number(e.target.value))} data-testid="overhead-slider" />
              <span className="muted small">
                added per node to the GPUs’ energy (plan: {planOverhead} W; {gpus} GPU{gpus > 1 ? 's' : ''})
              </span>
              <span className={`small analysis-state ${analysis.pending ? 'busy' : ''}`} data-testid="analysis-state" data-pending={analysis.pending}>
                {analysis.pending ? 'analysing…' : result ? `analysed at ${result.options.overhead_w} W` : ''}
              </span>
            </div>
            <div className="row selector-options">
              <SelectField<Selector> label="Best cap by" value={selector} options={SELECTOR_OPTIONS} onChange={setSelector} testId="selector" />
              <NumberField label="Slowdown budget" value={slowdownPct} min={0} max={100} step={1} unit="%" onChange={(v) => setSlowdownPct(Math.max(0, Math.min(100, v)))} testId="slowdown-budget" />
              <NumberField label="Time weight" value={weight} min={0} max={1} step={0.1} onChange={(v) => setWeight(Math.max(0, Math.min(1, v)))} testId="weight" />
              <CheckField label="count caps that were not enforced" checked={includeUnenforced} onChange={setIncludeUnenforced} testId="include-unenforced" />
              <span className="muted small">
                {dateTime(data.sweep.created_at)} on {data.sweep.host} ({data.sweep.backend}) · analysis: 95 % CIs (Student t), Welch tests
              </span>
            </div>
            <TariffFields value={tariffText} onChange={setTariffText} />
          </div>
          {analysis.error && <p className="error">Analysis failed: {analysis.error}</p>}
          {entries.map((e) =>
            compared[e]?.error ? (
              <p key={e} className="error">
                Comparison with {compared[e]!.label} failed: {compared[e]!.error}
              </p>
            ) : null,
          )}
          {result ? (
            <AnalysisView result={result} data={data} compare={compareTo} overhead={ov} onDrill={setDrill} />
          ) : (
            !analysis.error && <p className="muted">Analysing…</p>
          )}
          <OverlayPicksBar />
          {drill && <RunDrilldown run={drill} analysis={result?.runs.find((r) => r.run_id === drill.id) ?? null} onClose={() => setDrill(null)} />}
        </>
      )}
    </section>
  );
}

/** Imported datasets that have segments with a cap and work units: those the results page can compare with. */
function useAnalysableDatasets(): DatasetRecord[] {
  const [datasets, setDatasets] = useState<DatasetRecord[]>([]);
  useEffect(() => {
    let stale = false;
    api.listDatasets({}).then(
      (all) => !stale && setDatasets(all.filter((d) => analysableSegments(d).length > 0)),
      () => !stale && setDatasets([]),
    );
    return () => {
      stale = true;
    };
  }, []);
  return datasets;
}

/** The options of a "compare with" picker: sweeps (one that did not finish says so) and analysable datasets. */
function compareOptions(sweeps: readonly SweepRecord[], datasets: readonly DatasetRecord[], exclude: readonly string[]) {
  return (
    <>
      {sweeps
        .filter((s) => !exclude.includes(String(s.id)))
        .map((s) => (
          // One with no finished run has nothing to compare.
          <option key={s.id} value={s.id} disabled={s.runs_done === 0}>
            #{s.id} {s.name}
            {s.status !== 'done' ? ` · ${s.status}, ${s.runs_done}/${s.run_count} runs` : ''}
          </option>
        ))}
      {datasets.some((d) => !exclude.includes(`dataset:${d.id}`)) && (
        <optgroup label="Imported datasets (segments with cap and units)">
          {datasets
            .filter((d) => !exclude.includes(`dataset:${d.id}`))
            .map((d) => (
              <option key={d.id} value={`dataset:${d.id}`}>
                dataset #{d.id} {d.name}
              </option>
            ))}
        </optgroup>
      )}
    </>
  );
}

/** A compared sweep's or dataset's analysis, with what names it. */
interface CompareWith {
  result: AnalysisResult;
  kind: AnalysisKind;
  id: number;
  name: string;
  /** The sweep's status (a cancelled or failed one is marked in the legend); null for a dataset. */
  status: SweepRecord['status'] | null;
}

/** One compared entry as far as it has loaded: its analysis (null until then), an error, and a name for the chip. */
interface ComparedState {
  compare: CompareWith | null;
  error: string | null;
  label: string;
}

/**
 * Loads one compared sweep or dataset and its analysis with the page's options and reports it to the page, so the
 * page compares with any number of them (hooks cannot run in a loop).
 */
function ComparedLoader({ entry, query, datasets, onChange }: { entry: string; query: AnalysisQuery; datasets: readonly DatasetRecord[]; onChange(entry: string, st: ComparedState | null): void }) {
  const kind: AnalysisKind = entry.startsWith('dataset:') ? 'dataset' : 'sweep';
  const cid = Number(entry.replace(/^dataset:/, ''));
  const loaded = useSweepData(kind === 'sweep' ? cid : null);
  const sweep = loaded.data;
  const cmp = useAnalysis(kind === 'sweep' ? (sweep ? cid : null) : cid, query, revisionOf(sweep), kind);
  const mine = cmp.key === `${kind}:${cid}`;
  const result = mine ? cmp.result : null;
  const name = kind === 'sweep' ? (sweep?.sweep.name ?? null) : (datasets.find((d) => d.id === cid)?.name ?? null);
  const status = sweep?.sweep.status ?? null;
  const error = (mine ? cmp.error : null) ?? (loaded.missing ? `no sweep ${cid}` : null);
  const label = `${kind === 'dataset' ? 'dataset ' : ''}#${cid}${name != null ? ` ${name}` : ''}`;
  useEffect(() => onChange(entry, { compare: result && name != null ? { result, kind, id: cid, name, status } : null, error, label }), [entry, result, name, status, error, label, kind, cid, onChange]);
  useEffect(() => () => onChange(entry, null), [entry, onChange]);
  return null;
}

/**
 * "#3 · H100 ViT sweep · H100 SXM" ("dataset #2 · ..." for a dataset): a series' legend entry (names shortened); a
 * sweep that did not finish says so ("· cancelled"), its curve having fewer caps than planned.
 */
export function seriesLabel(id: number, name: string, model: string, kind: AnalysisKind = 'sweep', status: string | null = null): string {
  // Long enough to tell compared sweeps of one series apart by name (the legend sits above the plot and wraps).
  const short = name.length > 56 ? `${name.slice(0, 55)}…` : name;
  return `${kind === 'dataset' ? 'dataset ' : ''}#${id} · ${short} · ${model.replace(/ \(simulated\)$/, ' (sim)')}${status && status !== 'done' ? ` · ${status}` : ''}`;
}

function AnalysisView({ result, data, compare, overhead, onDrill }: { result: AnalysisResult; data: Loaded; compare: readonly CompareWith[]; overhead: number; onDrill(r: RunRecord): void }) {
  const [tab, setTab] = useState(0);
  const runsById = useMemo(() => new Map(data.runs.map((r) => [r.id, r])), [data.runs]);
  const g = result.groups[Math.min(tab, result.groups.length - 1)];
  const compares = useMemo(
    () =>
      g
        ? compare.flatMap((c) => {
            const cg = matchGroup(c.result.groups, g);
            return cg ? [{ g: cg, label: seriesLabel(c.id, c.name, cg.device_model, c.kind, c.status) }] : [];
          })
        : [],
    [compare, g],
  );
  if (!g) return <p className="muted">No finished runs yet.</p>;
  return (
    <div data-testid={`workload-${g.workload}`}>
      {result.groups.length > 1 && (
        <div className="tabs" role="tablist">
          {result.groups.map((x, i) => (
            <button key={groupLabel(x)} role="tab" aria-selected={x === g} className={x === g ? 'on' : ''} onClick={() => setTab(i)}>
              {groupLabel(x)}
            </button>
          ))}
        </div>
      )}
      <GroupView g={g} result={result} sweepId={data.sweep.id} sweepName={data.sweep.name} sweepStatus={data.sweep.status} compares={compares} overhead={overhead} runsById={runsById} onDrill={onDrill} />
    </div>
  );
}

function GroupView({
  g,
  result,
  sweepId,
  sweepName,
  sweepStatus,
  compares,
  overhead,
  runsById,
  onDrill,
}: {
  g: AnalysisGroup;
  result: AnalysisResult;
  sweepId: number;
  sweepName: string;
  sweepStatus: string;
  compares: readonly { g: AnalysisGroup; label: string }[];
  overhead: number;
  runsById: Map<number, RunRecord>;
  onDrill(r: RunRecord): void;
}) {
  const units = g.units ?? 'units';
  const opts = result.options;
  const effBest = g.optima['max-efficiency'];
  // Series say which sweep and device they are, not just its number.
  const name = seriesLabel(sweepId, sweepName, g.device_model, 'sweep', sweepStatus);
  const inputs = useMemo<ChartInput[]>(() => [{ name, group: g }, ...compares.map((c) => ({ name: c.label, group: c.g }))], [g, compares, name]);
  const eff = useMemo(() => efficiencyChart(inputs), [inputs]);
  const thr = useMemo(() => throughputChart(inputs), [inputs]);
  const par = useMemo(() => paretoChart(inputs), [inputs]);
  const clk = useMemo(() => clockChart(g), [g]);
  const ciCount = g.caps.filter((c) => c.efficiency.ci != null).length;
  return (
    <>
      <div className="best-caps">
        {SELECTOR_ORDER.map((s) => {
          const o = g.optima[s];
          const none = noAnswerText(o);
          return (
            <div className={`card best ${s === opts.selector ? 'chosen' : ''} ${none ? 'no-answer' : ''}`} key={s} data-testid={`best-${s}`}>
              <div className="muted small">
                {selectorTitle(s, opts)}
                {s === opts.selector && <span className="chosen-mark"> · selected</span>}
              </div>
              <div className={`big-number ${none ? 'none' : ''}`} data-testid={s === 'max-efficiency' ? 'best-cap' : undefined}>
                {none ? 'No answer' : `${o.cap_w} W`}
              </div>
              {o.basis && (
                <div className="small muted" data-testid={`best-basis-${s}`}>
                  {o.basis}
                </div>
              )}
              {none ? (
                <>
                  <div className="small" data-testid={`best-reason-${s}`}>
                    {none.reason}
                  </div>
                  {none.fix && (
                    <div className="small fix" data-testid={`best-fix-${s}`}>
                      Fix: {none.fix}
                    </div>
                  )}
                </>
              ) : (
                <>
                  <div className="small">{optimumValue(o, units)}</div>
                  <div className="small muted" data-testid={`best-range-${s}`}>
                    {rangeText(o)}
                  </div>
                  {cardNote(o) && <div className="small muted note">{cardNote(o)}</div>}
                </>
              )}
            </div>
          );
        })}
      </div>
      {g.energy_basis && (
        <p className="small muted energy-basis" data-testid="energy-basis">
          {units}/J counts {g.energy_basis}.
        </p>
      )}
      <div className="results-side">
        <Sensitivity g={g} overhead={overhead} />
        <Flags g={g} result={result} />
        <CostCard g={g} result={result} />
        {compares.length > 0 && <ComparisonCard g={g} compares={compares} name={name} units={units} />}
      </div>
      <div className="plots">
        <div className="card">
          <ChartCard spec={eff} testId="efficiency-plot" />
          <p className="small muted legend-line" data-testid="efficiency-ci" data-ci-count={ciCount}>
            Bars: 95 % CI over repetitions ({ciCount} of {g.caps.length} caps have one). Shaded: caps that may be the best (within the margin, or too few repetitions to tell). <span className="dot-key ok" /> no warnings <span className="dot-key warn" /> warning <span className="dot-key err" /> problem · ✕ excluded from the best cap
          </p>
        </div>
        <div className="card">
          <ChartCard spec={thr} testId="throughput-plot" />
        </div>
        <div className="card">
          <ChartCard spec={par} testId="pareto-plot" />
        </div>
        <div className="card">
          <ChartCard spec={clk} testId="clock-plot" />
        </div>
      </div>
      <CapTable caps={g.caps} units={units} runsById={runsById} best={effBest.cap_w} onDrill={onDrill} />
    </>
  );
}

function FlagChip({ cap, flag }: { cap: CapPoint; flag: AnalysisFlag }) {
  const info = FLAG_INFO[flag];
  return (
    <span className={`flag flag-${info.severity}`} title={flagDetail(cap, flag)} data-flag={flag}>
      {info.label}
    </span>
  );
}

function Sensitivity({ g, overhead }: { g: AnalysisGroup; overhead: number }) {
  const rows = g.sensitivity.table;
  const fig = useMemo(() => plotlyFigure(sensitivityChart(g)), [g]);
  const at = nearestOverhead(
    rows.map((r) => r.overhead_w),
    overhead,
  );
  return (
    <div className="card sens-card">
      <h3>Best cap (W) vs node overhead</h3>
      <table className="table small sens" data-testid="overhead-sensitivity">
        <thead>
          <tr>
            <th>overhead (W)</th>
            {rows.map((r) => (
              <th key={r.overhead_w} className={r.overhead_w === at ? 'at' : ''}>
                {r.overhead_w}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {SELECTOR_ORDER.map((s) => (
            <tr key={s}>
              <th>{s}</th>
              {rows.map((r) => (
                <td key={r.overhead_w} className={r.overhead_w === at ? 'at' : ''}>
                  {r.best[s] ?? '–'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">
        {g.sensitivity.changes.length
          ? g.sensitivity.changes.map((c) => `${c.selector}: ${c.from_cap_w ?? '–'} → ${c.to_cap_w ?? '–'} W between ${c.overhead_lo} and ${c.overhead_hi} W`).join(' · ')
          : `No selector’s best cap moves between ${g.sensitivity.from_w} and ${g.sensitivity.to_w} W of overhead.`}
      </p>
      <Plot testId="sensitivity-plot" data={fig.data} layout={{ ...fig.layout, margin: { l: 56, r: 16, t: 10, b: 84 }, legend: { orientation: 'h', y: -0.45 } }} height={260} />
    </div>
  );
}

function pct(a: number | null, b: number | null): string {
  if (a == null || b == null || b === 0) return '';
  const d = (a / b - 1) * 100;
  return ` (${d >= 0 ? '+' : ''}${d.toFixed(1)} %)`;
}

/** The shown sweep's best caps and peak efficiency beside each compared one's (columns in the charts' colours). */
function ComparisonCard({ g, compares, name, units }: { g: AnalysisGroup; compares: readonly { g: AnalysisGroup; label: string }[]; name: string; units: string }) {
  const peak = (x: AnalysisGroup) => x.optima['max-efficiency'].value;
  const thrAt = (x: AnalysisGroup, cap: number | null) => x.caps.find((p) => p.cap_w === cap)?.throughput.mean ?? null;
  const thrBest = (x: AnalysisGroup) => thrAt(x, x.optima['max-efficiency'].cap_w);
  const cols = [{ g, label: name }, ...compares];
  return (
    <div className="card comparison" data-testid="comparison">
      <h3>Comparison</h3>
      <div className="table-scroll">
        <table className="table small">
          <thead>
            <tr>
              <th />
              {cols.map((c, i) => (
                <th key={i} data-testid="comparison-head">
                  <span className="swatch" style={{ background: seriesColor(i) }} aria-hidden /> {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>device</th>
              {cols.map((c, i) => (
                <td key={i}>{c.g.device_model}</td>
              ))}
            </tr>
            {SELECTOR_ORDER.map((s) => (
              <tr key={s}>
                <th>best cap, {s}</th>
                {cols.map((c, i) => (
                  <td key={i}>{bestCapText(c.g.optima[s].cap_w)}</td>
                ))}
              </tr>
            ))}
            <tr>
              <th>peak efficiency ({units}/J)</th>
              {cols.map((c, i) => (
                <td key={i}>
                  {sig(peak(c.g))}
                  {i > 0 && <span className="muted">{pct(peak(c.g), peak(g))}</span>}
                </td>
              ))}
            </tr>
            <tr>
              <th>throughput there ({units}/s/GPU)</th>
              {cols.map((c, i) => (
                <td key={i}>
                  {fmt(thrBest(c.g), 1)}
                  {i > 0 && <span className="muted">{pct(thrBest(c.g), thrBest(g))}</span>}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Flags({ g, result }: { g: AnalysisGroup; result: AnalysisResult }) {
  const flagged = g.caps.filter((c) => c.flags.length);
  return (
    <div className="card" data-testid="flags">
      <h3>Flags</h3>
      {flagged.length === 0 ? (
        <p className="ok small">No flags: caps enforced, repetitions consistent, windows long enough and steady.</p>
      ) : (
        <ul className="flags">
          {flagged.map((c) => (
            <li key={c.cap_w} data-testid="flag-row" data-cap={c.cap_w}>
              <strong>{c.cap_w} W</strong>{' '}
              {sortedFlags(c.flags).map((f) => (
                <span key={f} className="flag-line">
                  <FlagChip cap={c} flag={f} /> <span className="small muted">{flagDetail(c, f)}</span>
                </span>
              ))}
            </li>
          ))}
        </ul>
      )}
      {g.notes.length > 0 && <p className="small muted">{g.notes.join(' · ')}</p>}
      {result.adaptive && (
        <p className="small muted" data-testid="adaptive-saved">
          Adaptive plan: {result.adaptive.note}.
        </p>
      )}
      {result.warnings.length > 0 && (
        <details className="small">
          <summary>{result.warnings.length} analysis warning(s)</summary>
          <ul className="warnings">
            {result.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function CapTable({ caps, units, runsById, best, onDrill }: { caps: CapPoint[]; units: string; runsById: Map<number, RunRecord>; best: number | null; onDrill(r: RunRecord): void }) {
  return (
    <div className="card">
      <h3>Per cap</h3>
      <div className="table-scroll">
      <table className="table" data-testid="cap-table">
        <thead>
          <tr>
            <th>Cap</th>
            <th>n</th>
            <th>Efficiency ({units}/J, 95 % CI)</th>
            <th>Throughput ({units}/s/GPU)</th>
            <th>Power (W/GPU)</th>
            <th>SM clock</th>
            <th>Cap-throttled</th>
            <th>Enforced</th>
            <th>Flags</th>
            <th>Runs (click for traces, tick to overlay)</th>
          </tr>
        </thead>
        <tbody>
          {caps.map((c) => (
            <tr key={c.cap_w} className={`${c.flags.length ? 'flagged' : ''} ${c.cap_w === best ? 'best-row' : ''}`} data-cap={c.cap_w}>
              <td className="nowrap">{c.cap_w} W</td>
              <td>{c.n_usable}</td>
              <td>
                {sig(c.efficiency.mean, 4)} {c.efficiency.ci != null && <span className="muted">± {sig(c.efficiency.ci.half_width, 2)}</span>}
              </td>
              <td>
                {fmt(c.throughput.mean, 1)} {c.throughput.ci != null && <span className="muted">± {sig(c.throughput.ci.half_width, 2)}</span>}
              </td>
              <td>{fmt(c.power_w.mean, 0)}</td>
              <td className="nowrap">{c.clocks.sm_mhz == null ? '–' : `${fmt(c.clocks.sm_mhz, 0)} MHz`}</td>
              <td>{c.clocks.power_cap_throttled_share == null ? '–' : `${Math.round(c.clocks.power_cap_throttled_share * 100)} %`}</td>
              <td className={c.enforcement.enforced === false ? 'error' : ''}>{c.enforcement.enforced == null ? '?' : c.enforcement.enforced ? 'yes' : 'no'}</td>
              <td data-testid="cap-flags">
                {sortedFlags(c.flags).map((f) => (
                  <FlagChip key={f} cap={c} flag={f} />
                ))}
              </td>
              <td>
                {c.run_ids.map((id) => {
                  const r = runsById.get(id);
                  return r ? (
                    <span key={id} className="run-pick">
                      <OverlayPick refTo={{ kind: 'run', id }} label={`run #${id} (${r.workload} at ${r.cap_w} W, repetition ${r.repetition})`} />
                      <button className={`chip status-${r.status}`} onClick={() => onDrill(r)} title={`run #${r.id}, repetition ${r.repetition}: ${r.status}`}>
                        r{r.repetition}
                      </button>
                    </span>
                  ) : null;
                })}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </div>
  );
}
