import { useEffect, useMemo, useState } from 'react';
import type { RunRecord, SweepRecord } from '../../shared/records';
import { api } from '../api/client';
import { Plot } from '../components/Plot';
import { SimBadge, StatusBadge } from '../components/Badges';
import { dateTime, fmt, sig } from '../lib/format';
import { navigate } from '../lib/route';
import { overheadSensitivity, selectors, summarize, type CapSummary } from '../lib/results';
import { useHistory } from '../state/history';
import { useSweep } from '../state/sweep';
import { efficiencyTraces, paretoTraces, throughputTraces } from './results/charts';
import { RunDrilldown } from './results/RunDrilldown';
import { useRunClocks } from './results/use-run-clocks';

interface Loaded {
  sweep: SweepRecord;
  runs: RunRecord[];
}

function useSweepData(id: number | null): { data: Loaded | null; error: string | null } {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const finished = useSweep((s) => (s.activeId === id ? s.finished : null));
  const runsDone = useSweep((s) => (s.activeId === id ? s.runs.length : 0));
  useEffect(() => {
    if (id == null) return;
    let stale = false;
    api.getSweep({ sweep_id: id }).then(
      (r) => !stale && (setData(r), setError(null)),
      (e) => !stale && setError((e as Error).message),
    );
    return () => {
      stale = true;
    };
  }, [id, finished, runsDone]);
  return { data: data && data.sweep.id === id ? data : null, error };
}

export function ResultsPage({ param }: { param: string | null }) {
  const { sweeps, load } = useHistory();
  useEffect(() => void load(), [load]);
  const latest = sweeps.find((s) => s.runs_done > 0)?.id ?? sweeps[0]?.id ?? null;
  const id = param != null && /^\d+$/.test(param) ? Number(param) : latest;
  const { data, error } = useSweepData(id);
  const [compareId, setCompareId] = useState<number | null>(null);
  const compare = useSweepData(compareId).data;
  const [overhead, setOverhead] = useState<number | null>(null);
  const [drill, setDrill] = useState<RunRecord | null>(null);

  useEffect(() => {
    setOverhead(null);
    setDrill(null);
  }, [id]);

  if (id == null) {
    return (
      <section className="page">
        <h2>Results</h2>
        <p className="muted">No sweeps yet.</p>
      </section>
    );
  }
  const planOverhead = data?.sweep.plan.overhead_w ?? 100;
  const ov = overhead ?? planOverhead;
  const gpus = data?.sweep.plan.devices.length ?? 1;
  return (
    <section className="page results" aria-labelledby="results-title">
      <header className="page-head">
        <h2 id="results-title">
          Results · sweep #{id} {data && <span className="muted">{data.sweep.name}</span>}
        </h2>
        <div className="row">
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
          <label className="field">
            <span>Compare with</span>
            <select value={compareId ?? ''} onChange={(e) => setCompareId(e.target.value ? Number(e.target.value) : null)} data-testid="results-compare">
              <option value="">—</option>
              {sweeps
                .filter((s) => s.id !== id)
                .map((s) => (
                  <option key={s.id} value={s.id}>
                    #{s.id} {s.name}
                  </option>
                ))}
            </select>
          </label>
        </div>
      </header>
      {error && <p className="error">{error}</p>}
      {data && (
        <>
          <div className="overhead card row">
            <label htmlFor="overhead-slider">
              Node overhead <strong data-testid="overhead-value">{ov} W</strong>
            </label>
            <input id="overhead-slider" type="range" min={0} max={400} step={10} value={ov} onChange={(e) => setOverhead(Number(e.target.value))} data-testid="overhead-slider" />
            <span className="muted small">
              added to GPU power for efficiency (plan: {planOverhead} W; {data.sweep.plan.devices.length} GPU{gpus > 1 ? 's' : ''}) · {dateTime(data.sweep.created_at)} on {data.sweep.host} ({data.sweep.backend})
            </span>
          </div>
          <WorkloadResults data={data} compare={compare} overhead={ov} gpus={gpus} onDrill={setDrill} />
          {drill && <RunDrilldown run={drill} onClose={() => setDrill(null)} />}
        </>
      )}
    </section>
  );
}

function WorkloadResults({ data, compare, overhead, gpus, onDrill }: { data: Loaded; compare: Loaded | null; overhead: number; gpus: number; onDrill(r: RunRecord): void }) {
  const planOverhead = data.sweep.plan.overhead_w;
  const summary = useMemo(() => summarize(data.runs, { gpus, planOverhead, overhead }), [data, gpus, planOverhead, overhead]);
  const cmp = useMemo(
    () => (compare ? summarize(compare.runs, { gpus: compare.sweep.plan.devices.length, planOverhead: compare.sweep.plan.overhead_w, overhead }) : null),
    [compare, overhead],
  );
  const sens = useMemo(() => overheadSensitivity(data.runs, { gpus, planOverhead }), [data, gpus, planOverhead]);
  const clocks = useRunClocks(data.runs);
  const workloads = [...summary.keys()];
  const [tab, setTab] = useState(0);
  const w = workloads[Math.min(tab, workloads.length - 1)];
  if (!w) return <p className="muted">No runs finished yet.</p>;
  const caps = summary.get(w)!;
  const sel = selectors(caps);
  const best = sel[0]!.cap_w;
  const units = caps.find((c) => c.units)?.units ?? 'units';
  const cmpCaps = cmp?.get(w) ?? null;
  const clockPoints = caps.map((c) => {
    const vals = c.runs.map((r) => clocks.get(r.id)).filter((x): x is number => x != null);
    return { cap: c.cap_w, mhz: vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null };
  });
  return (
    <div data-testid={`workload-${w}`}>
      {workloads.length > 1 && (
        <div className="tabs" role="tablist">
          {workloads.map((x, i) => (
            <button key={x} role="tab" aria-selected={x === w} className={x === w ? 'on' : ''} onClick={() => setTab(i)}>
              {x}
            </button>
          ))}
        </div>
      )}
      <div className="best-caps">
        {sel.map((s) => (
          <div className="card best" key={s.id} data-testid={`best-${s.id}`}>
            <div className="muted small">{s.label}</div>
            <div className="big-number" data-testid={s.id === 'max-efficiency' ? 'best-cap' : undefined}>
              {s.cap_w == null ? '–' : `${s.cap_w} W`}
            </div>
            <div className="small">{s.note}</div>
            {s.range && s.range[0] !== s.range[1] && <div className="small muted">indistinguishable (95 % CI) from {s.range[0]}–{s.range[1]} W</div>}
          </div>
        ))}
        <div className="card best sens-card">
          <div className="muted small">Best cap (W) vs node overhead (W)</div>
          <table className="table small sens" data-testid="overhead-sensitivity">
            <tbody>
              <tr>
                <th>overhead</th>
                {sens.filter((x) => x.workload === w).map((x) => (
                  <td key={x.overhead}>{x.overhead}</td>
                ))}
              </tr>
              <tr>
                <th>best cap</th>
                {sens.filter((x) => x.workload === w).map((x) => (
                  <td key={x.overhead}>
                    <strong>{x.cap_w ?? '–'}</strong>
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
        </div>
      </div>
      <div className="plots">
        <div className="card">
          <h3>Efficiency vs cap</h3>
          <Plot
            testId="efficiency-plot"
            data={[...efficiencyTraces(caps, `#${data.sweep.id}`, 0, best), ...(cmpCaps ? efficiencyTraces(cmpCaps, `#${compareId(cmp)}`, 1, null) : [])]}
            layout={{ xaxis: { title: { text: 'power cap (W)' } }, yaxis: { title: { text: `${units} per joule (node)` } }, showlegend: !!cmpCaps }}
          />
        </div>
        <div className="card">
          <h3>Throughput vs cap</h3>
          <Plot
            testId="throughput-plot"
            data={[...throughputTraces(caps, `#${data.sweep.id}`, 0), ...(cmpCaps ? throughputTraces(cmpCaps, 'compare', 1) : [])]}
            layout={{ xaxis: { title: { text: 'power cap (W)' } }, yaxis: { title: { text: `${units}/s per GPU` }, rangemode: 'tozero' }, showlegend: !!cmpCaps }}
          />
        </div>
        <div className="card">
          <h3>Pareto: throughput vs energy per unit</h3>
          <Plot testId="pareto-plot" data={paretoTraces(caps)} layout={{ xaxis: { title: { text: `${units}/s per GPU` } }, yaxis: { title: { text: `J per ${units.replace(/s$/, '')}` } }, showlegend: false }} />
        </div>
        <div className="card">
          <h3>SM clock vs cap</h3>
          <Plot
            testId="clock-plot"
            data={[{ type: 'scatter', mode: 'lines+markers', x: clockPoints.map((c) => c.cap), y: clockPoints.map((c) => c.mhz), line: { color: '#59a14f' } }]}
            layout={{ xaxis: { title: { text: 'power cap (W)' } }, yaxis: { title: { text: 'mean SM clock in window (MHz)' } }, showlegend: false }}
          />
        </div>
      </div>
      <Flags caps={caps} />
      <CapTable caps={caps} units={units} onDrill={onDrill} />
    </div>
  );
}

function compareId(cmp: Map<string, CapSummary[]> | null): string {
  const first = cmp ? [...cmp.values()][0]?.[0]?.runs[0] : undefined;
  return first ? String(first.sweep_id) : 'compare';
}

function Flags({ caps }: { caps: CapSummary[] }) {
  const flagged = caps.filter((c) => c.flags.length);
  return (
    <div className="card" data-testid="flags">
      <h3>Flags</h3>
      {flagged.length === 0 ? (
        <p className="ok small">No flags: caps enforced, repetitions consistent, windows long enough.</p>
      ) : (
        <ul className="flags">
          {flagged.map((c) =>
            c.flags.map((f) => (
              <li key={`${c.cap_w}-${f}`}>
                <strong>{c.cap_w} W</strong>: {f}
              </li>
            )),
          )}
        </ul>
      )}
    </div>
  );
}

function CapTable({ caps, units, onDrill }: { caps: CapSummary[]; units: string; onDrill(r: RunRecord): void }) {
  return (
    <div className="card">
      <h3>Per cap</h3>
      <table className="table" data-testid="cap-table">
        <thead>
          <tr>
            <th>Cap</th>
            <th>n</th>
            <th>Efficiency ({units}/J)</th>
            <th>Throughput ({units}/s/GPU)</th>
            <th>Power (W/GPU)</th>
            <th>Runs (click for traces)</th>
          </tr>
        </thead>
        <tbody>
          {caps.map((c) => (
            <tr key={c.cap_w} className={c.flags.length ? 'flagged' : ''}>
              <td>{c.cap_w} W</td>
              <td>{c.efficiency.n}</td>
              <td>
                {sig(c.efficiency.mean, 4)} {c.efficiency.ci95 != null && <span className="muted">± {sig(c.efficiency.ci95, 2)}</span>}
              </td>
              <td>
                {fmt(c.throughput.mean, 1)} {c.throughput.ci95 != null && <span className="muted">± {fmt(c.throughput.ci95, 1)}</span>}
              </td>
              <td>{fmt(c.power_w.mean, 0)}</td>
              <td>
                {c.runs.map((r) => (
                  <button key={r.id} className={`chip status-${r.status}`} onClick={() => onDrill(r)} title={`run #${r.id}, repetition ${r.repetition}: ${r.status}`}>
                    r{r.repetition}
                  </button>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
