import { useEffect, useMemo, useState } from 'react';
import { api } from '../api/client';
import { Plot } from '../components/Plot';
import { navigate } from '../lib/route';
import { colorFor, fmt } from '../lib/format';
import { useOverlayPicks } from '../state/overlay';
import { overlayParam, parseOverlayParam, type OverlayRef, type OverlaySource } from '../../shared/overlay';
import type { Source } from '../../shared/source';
import { OverlayPicksBar } from './overlay/OverlayPicks';
import { overlayFigures, phaseShapes, PHASE_FILL, PHASE_WORD } from './overlay/figure';

const toSource = (r: OverlayRef): Source => (r.kind === 'run' ? { kind: 'run', run_id: r.id } : { kind: 'segment', segment_id: r.id });

/** Seconds of a source's phase, or '–' where it has none. */
function phaseLength(s: OverlaySource, phase: keyof typeof PHASE_WORD): string {
  const p = s.phases.find((x) => x.phase === phase);
  return p ? fmt(p.to - p.from, 1) : '–';
}

/** Runs and dataset segments overlaid: power, SM clock, temperature and throughput against seconds from each window start. */
export function OverlayPage({ param }: { param: string | null }) {
  const { refs, bad } = useMemo(() => parseOverlayParam(param ?? ''), [param]);
  const setPicks = useOverlayPicks((s) => s.set);
  const unpick = useOverlayPicks((s) => s.toggle);
  const [sources, setSources] = useState<OverlaySource[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [xRange, setXRange] = useState<[number, number] | null>(null);
  const key = overlayParam(refs);

  useEffect(() => {
    setSources(null);
    setError(null);
    setXRange(null);
    const shown = parseOverlayParam(key).refs;
    if (shown.length === 0) return;
    // What is shown is what is picked: going back to Results adds to it.
    setPicks(shown);
    let stale = false;
    api.overlayTraces({ sources: shown.map(toSource), max_points: 1500 }).then(
      (r) => !stale && setSources(r.sources),
      (e) => !stale && setError((e as Error).message),
    );
    return () => {
      stale = true;
    };
  }, [key, setPicks]);

  const figures = useMemo(() => (sources ? overlayFigures(sources) : []), [sources]);
  const shapes = useMemo(() => (sources ? phaseShapes(sources) : []), [sources]);
  const remove = (i: number) => {
    unpick(refs[i]!);
    navigate('overlay', overlayParam(refs.filter((_, k) => k !== i)));
  };

  return (
    <section className="page overlay" aria-labelledby="overlay-title">
      <header className="page-head">
        <h2 id="overlay-title">Overlay traces</h2>
        <span className="muted small">t = 0 at each source’s measurement window start · shading: {Object.entries(PHASE_WORD).map(([p, w]) => (
          <span key={p} className="phase-key" style={{ background: PHASE_FILL[p as keyof typeof PHASE_FILL] }}>{w}</span>
        ))}</span>
      </header>
      {bad.length > 0 && (
        <p className="error" data-testid="overlay-bad">
          Not a run or segment: {bad.join(', ')} (the address names runs as r12 and segments as s4).
        </p>
      )}
      {refs.length === 0 ? (
        <div className="empty-state" data-testid="overlay-empty">
          <p>
            <strong>Nothing picked to overlay.</strong> Tick runs in the Results page’s per-cap table (one sweep or several), or segments in a dataset’s segment table, then press Overlay traces.
          </p>
          <OverlayPicksBar />
          <div className="row">
            <button onClick={() => navigate('results')}>Results</button>
            <button onClick={() => navigate('datasets')}>Datasets</button>
          </div>
        </div>
      ) : (
        <>
          {error && <p className="error">{error}</p>}
          {!sources && !error && <p className="muted">loading traces…</p>}
          {sources && (
            <>
              <div className="card">
                <table className="table small" data-testid="overlay-sources">
                  <thead>
                    <tr>
                      <th />
                      <th>Source</th>
                      <th>Warm-up s</th>
                      <th>Window s</th>
                      <th>Cool-down s</th>
                      <th>Not recorded</th>
                      <th />
                    </tr>
                  </thead>
                  <tbody>
                    {sources.map((s, i) => (
                      <tr key={`${s.source.kind}${s.source.id}`} data-testid="overlay-source">
                        <td>
                          <span className="swatch" style={{ background: colorFor(i) }} />
                        </td>
                        <td>
                          {s.sweep_id !== null ? (
                            <a href={`#/results/${s.sweep_id}`}>{s.label}</a>
                          ) : s.dataset_id !== null && s.error === null ? (
                            <a href={`#/datasets/${s.dataset_id}`}>{s.label}</a>
                          ) : (
                            s.label
                          )}
                          {s.simulated && <span className="muted"> (simulated)</span>}
                          {s.error && <span className="error"> · {s.error}</span>}
                        </td>
                        <td>{phaseLength(s, 'warmup')}</td>
                        <td>{phaseLength(s, 'measure')}</td>
                        <td>{phaseLength(s, 'cooldown')}</td>
                        <td className="small" data-testid="overlay-not-recorded">
                          {s.missing.length ? s.missing.map((m) => m.why).join('; ') : '–'}
                        </td>
                        <td>
                          <button className="small" onClick={() => remove(i)} aria-label={`remove ${s.label}`}>
                            Remove
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <div className="overlay-grid">
                {figures.map((f, k) => (
                  <div className="card" key={f.metric}>
                    <h3>
                      {f.title} <span className="muted small">({f.unit})</span>
                    </h3>
                    {f.missing.length > 0 && (
                      <p className="small muted" data-testid={`overlay-missing-${f.metric}`}>
                        Not recorded, not drawn: {f.missing.map((m) => `${m.label} (${m.why})`).join('; ')}
                      </p>
                    )}
                    {f.data.length > 0 ? (
                      <Plot
                        testId={`overlay-plot-${f.metric}`}
                        data={f.data}
                        height={k === 0 ? 340 : 260}
                        onXRange={setXRange}
                        layout={{
                          shapes,
                          showlegend: k === 0,
                          xaxis: { title: { text: 'seconds from window start' }, ...(xRange ? { range: xRange, autorange: false } : { autorange: true }) },
                          yaxis: { title: { text: f.unit } },
                        }}
                      />
                    ) : (
                      <p className="muted" data-testid={`overlay-none-${f.metric}`}>
                        No source recorded {f.title.toLowerCase()}.
                      </p>
                    )}
                  </div>
                ))}
              </div>
            </>
          )}
        </>
      )}
    </section>
  );
}
