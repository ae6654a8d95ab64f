import { useEffect, useMemo, useState } from 'react';
import { LiveTraces } from '../components/LiveTraces';
import { WorkloadTerminal } from '../components/Terminal';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ProgressBar, SimBadge, StatusBadge } from '../components/Badges';
import { useCommand } from '../lib/commands';
import { fmt, formatDuration, sig } from '../lib/format';
import { navigate } from '../lib/route';
import { isIdParam } from '../lib/routes';
import { live, ptyBuffer } from '../state/live';
import { useDevices } from '../state/devices';
import { useSettings } from '../state/settings';
import { isRunning, useSweep } from '../state/sweep';
import { useTune } from '../state/tune';
import { TuneReport } from '../components/TuneReport';
import type { TuneStatus } from '../../shared/tune';
import { progressView } from '../lib/progress-view';
import { deviceLabel } from '../lib/device-label';
import { NotifyToggle } from '../components/PageHelp';
import { NoSweepsYet, NotStored } from '../components/EmptyState';
import { toast, toastError } from '../state/toasts';
import type { RunRecord } from '../../shared/records';

/** `#/console/N` follows sweep N (replayed from the database when it has ended); a sweep that is not stored is said so. */
function useConsoleParam(param: string | null): string | null {
  const follow = useSweep((x) => x.follow);
  const [missing, setMissing] = useState<string | null>(null);
  useEffect(() => {
    setMissing(null);
    if (!param) return;
    if (!isIdParam(param)) return setMissing(param);
    let stale = false;
    void follow(Number(param)).then((found) => !stale && !found && setMissing(param));
    return () => {
      stale = true;
    };
  }, [param, follow]);
  return missing;
}

export function ConsolePage({ param }: { param: string | null }) {
  const missing = useConsoleParam(param);
  const s = useSweep();
  const running = isRunning(s);
  const tuneStatus = useTune((x) => x.status);
  const tune = tuneStatus && tuneStatus.sweep_id === s.activeId ? tuneStatus : null;
  const loadStoredTune = useTune((x) => x.loadStored);
  const ended = s.activeId !== null && !running && s.sweep !== null && s.sweep.status !== 'running';
  // Opened after a session ended (a reload, from History): its outcome comes from the database, not live events.
  useEffect(() => {
    if (ended && !tune && s.activeId !== null) loadStoredTune(s.activeId).catch(toastError);
  }, [ended, tune, s.activeId, loadStoredTune]);
  const [confirm, setConfirm] = useState(false);
  const { devices, load: loadDevices } = useDevices();
  // Device names for the legend, also when the console is the first page opened (a reload).
  useEffect(() => {
    if (!devices.length) void loadDevices();
  }, [devices.length, loadDevices]);
  const names = useMemo(() => Object.fromEntries(devices.map((d) => [d.id, deviceLabel(d.id, devices)])), [devices]);

  const discover = useSweep((x) => x.discover);
  useEffect(() => {
    if (!param && useSweep.getState().activeId === null) void discover();
  }, [discover, param]);

  useCommand(['sweep:cancel'], () => running && setConfirm(true));

  async function doCancel() {
    setConfirm(false);
    try {
      const ok = await s.cancel();
      if (!ok) toast('warn', 'The sweep had already ended.');
    } catch (e) {
      toastError(e);
    }
  }

  if (missing !== null) {
    return (
      <section className="page" aria-labelledby="console-title">
        <h2 id="console-title">Run console</h2>
        <NotStored what="sweep" id={missing} list="history" />
      </section>
    );
  }
  if (s.activeId === null) {
    return (
      <section className="page" aria-labelledby="console-title">
        <h2 id="console-title">Run console</h2>
        <NoSweepsYet what="live traces" />
      </section>
    );
  }
  const p = s.progress;
  const view = progressView(s.sweep, p, s.finished?.status ?? (running ? null : (s.sweep?.status ?? null)), s.maxFraction);
  const status = view.status;
  return (
    <section className="page console" aria-labelledby="console-title">
      <header className="page-head">
        <h2 id="console-title">
          Run console · {tune ? 'tuning session' : 'sweep'} #{s.activeId} {s.sweep?.name ? <span className="muted">{s.sweep.name}</span> : null}
        </h2>
        <div className="row">
          {running && <NotifyToggle />}
          {s.simulated && <SimBadge />}
          <span data-testid="sweep-status">
            <StatusBadge status={status} />
          </span>
          {running && (
            <button className="danger" onClick={() => setConfirm(true)} disabled={s.cancelling} data-testid="cancel-sweep" title="Ctrl+.">
              {s.cancelling ? 'Cancelling… restoring limits' : tune ? 'Cancel tuning' : 'Cancel sweep'}
            </button>
          )}
          {!running && (
            <button className="primary" onClick={() => navigate('results', s.activeId)} data-testid="open-results">
              Results
            </button>
          )}
        </div>
      </header>
      <div className="progress-line" data-testid="progress">
        <ProgressBar fraction={view.fraction} label="sweep progress" />
        <span data-testid="progress-text" data-fraction={view.fraction}>
          <strong data-testid="runs-done">{tune ? tuneProgressText(tune, view.status) : view.text}</strong>
        </span>
        {p && running && !tune && (
          <span data-testid="current-run">
            {p.workload ?? '–'} at <strong>{p.cap_w ?? '–'} W</strong>, repetition {p.repetition ?? '–'} · <span className={`phase phase-${p.phase}`}>{p.phase}</span>
            {p.reason && <span className="muted small" data-testid="run-reason"> · cap {p.cap_w} W: {p.reason}</span>}
          </span>
        )}
      </div>
      {tune && <TunePanel t={tune} />}
      {ended && <TuneReport text={s.sweep?.tune_report ?? null} open />}
      {s.finished ? <FinishedBanner what={tune ? 'Tuning session' : 'Sweep'} /> : !running && s.sweep && s.sweep.status !== 'running' ? <StoredEndBanner what={tune ? 'Tuning session' : 'Sweep'} status={s.sweep.status} error={s.sweep.error} /> : null}
      <LiveTraces source={live} names={names} simulated={s.simulated} />
      <WindowControls />
      <div className="console-bottom">
        <RunsTable runs={s.runs} />
        <div className="card">
          <h3>Workload terminal</h3>
          <WorkloadTerminal sweepId={running ? s.activeId : null} />
          {!running && !ptyBuffer.text() && (
            <p className="muted small" data-testid="terminal-note">
              The workload&apos;s output is shown live while a sweep runs; it is not replayed from the database. A failed run&apos;s last lines are in its error (Results, click the run).
            </p>
          )}
        </div>
      </div>
      {confirm && (
        <ConfirmDialog
          title={tune ? 'Cancel the tuning session?' : 'Cancel the sweep?'}
          body={`The running ${tune ? 'job' : 'workload'} is stopped and every changed power limit is restored to the value journalled before the ${tune ? 'session' : 'sweep'}.`}
          confirmLabel={tune ? 'Cancel tuning' : 'Cancel sweep'}
          danger
          onConfirm={() => void doCancel()}
          onCancel={() => setConfirm(false)}
        />
      )}
    </section>
  );
}

/** "job 412 s of 1500 s, 3 visits": a tuning session has no fixed run count. */
function tuneProgressText(t: TuneStatus, status: string): string {
  const visits = `${t.visits} visit${t.visits === 1 ? '' : 's'}`;
  if (status !== 'running') return `${status} after ${formatDuration(t.job_s)} of the job, ${visits}`;
  return `job ${formatDuration(t.job_s)} of about ${formatDuration(t.expected_s)}, ${visits} done`;
}

const STAGE_TEXT: Record<TuneStatus['stage'], string> = {
  warmup: 'waiting for the job\'s rate to steady (no limit changed yet)',
  visit: 'profiling',
  hold: 'holding the chosen cap',
  ended: 'ended',
  interrupted: 'interrupted: CapLab was killed during the session',
};

/** What a tuning session is doing: the cap set now, the cap held, the share of the job spent profiling. */
function TunePanel({ t }: { t: TuneStatus }) {
  return (
    <div className="card" data-testid="tune-panel">
      <dl className="facts">
        <dt>Tuner</dt>
        <dd data-testid="tune-stage" data-stage={t.stage}>
          {STAGE_TEXT[t.stage]}
          {t.stage === 'visit' && t.cap_w !== null ? ` ${t.cap_w} W` : ''}
        </dd>
        <dt>Cap now</dt>
        <dd data-testid="tune-cap">{t.cap_w !== null ? `${t.cap_w} W` : `– (default ${t.default_limit_w} W)`}</dd>
        <dt>Held</dt>
        <dd data-testid="tune-held">{t.held_w !== null ? `${t.held_w} W` : '–'}</dd>
        <dt>Profiling</dt>
        <dd data-testid="tune-share">
          {formatDuration(t.profiling_s)} ({(t.profiling_share * 100).toFixed(1)} % of the job{t.stage === 'ended' || t.stage === 'interrupted' ? '' : ' so far'}; budget {formatDuration(t.budget_s)}), {t.visits} visit{t.visits === 1 ? '' : 's'}
        </dd>
      </dl>
      {t.note && (
        <p className="small muted" data-testid="tune-note">
          {t.note}
        </p>
      )}
    </div>
  );
}

function FinishedBanner({ what }: { what: string }) {
  const f = useSweep((s) => s.finished)!;
  return (
    <div className={`banner ${f.status === 'done' ? 'ok' : 'warn'}`} data-testid="finished-banner">
      <strong>
        {what} {f.status}.
      </strong>{' '}
      {f.error}
      {f.restored.length > 0 ? (
        <ul data-testid="restored">
          {f.restored.map((r) => (
            <li key={r.device_id}>
              {r.ok ? 'Restored' : 'FAILED to restore'} {r.device_name} ({r.device_id}) to <strong>{r.before_w} W</strong>
              {r.was_w != null ? ` (was ${r.was_w} W)` : ''}
              {r.error ? ` — ${r.error}` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <span> No limits needed restoring.</span>
      )}
    </div>
  );
}

/** An ended sweep this page did not watch end (a reload, an older sweep): what the database says. */
function StoredEndBanner({ what, status, error }: { what: string; status: string; error: string | null }) {
  return (
    <div className={`banner ${status === 'done' ? 'ok' : 'warn'}`} data-testid="finished-banner">
      <strong>
        {what} {status}.
      </strong> {error} The traces below are replayed from the database.
    </div>
  );
}

function WindowControls() {
  const { liveWindowMin, refreshMs, set } = useSettings();
  return (
    <div className="row small muted">
      <label>
        window{' '}
        <select value={liveWindowMin} onChange={(e) => set({ liveWindowMin: Number(e.target.value) })}>
          {[1, 2, 5, 10, 30, 60].map((m) => (
            <option key={m} value={m}>
              {m} min
            </option>
          ))}
        </select>
      </label>
      <label>
        redraw every{' '}
        <select value={refreshMs} onChange={(e) => set({ refreshMs: Number(e.target.value) })}>
          {[250, 500, 1000, 2000].map((m) => (
            <option key={m} value={m}>
              {m} ms
            </option>
          ))}
        </select>
      </label>
      <span>Shaded: warm-up (orange), measurement (green), cool-down (blue). Dashed: the power cap.</span>
    </div>
  );
}

/** "812.3 images/s"; a missing figure is a bare dash (no "– images/s" beside "– /s"). */
function withUnit(value: string, units: string | null, per: string): string {
  return value === '–' ? '–' : `${value} ${units ?? 'units'}${per}`;
}

function RunsTable({ runs }: { runs: RunRecord[] }) {
  const sorted = [...runs].sort((a, b) => a.order - b.order);
  return (
    <div className="card">
      <h3>Finished runs</h3>
      <div className="table-scroll">
      <table className="table nowrap" data-testid="console-runs">
        <thead>
          <tr>
            <th>#</th>
            <th>Workload</th>
            <th>Cap</th>
            <th>Rep</th>
            <th>Status</th>
            <th>Throughput</th>
            <th>Power</th>
            <th>Efficiency</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((r) => (
            <tr key={r.id}>
              <td>{r.order + 1}</td>
              <td>{r.workload}</td>
              <td>{r.cap_w} W</td>
              <td>{r.repetition}</td>
              <td>
                <StatusBadge status={r.status} />
              </td>
              <td>{withUnit(fmt(r.throughput, 1), r.units, '/s')}</td>
              <td>{withUnit(fmt(r.mean_power_w, 0), 'W', '')}</td>
              <td>{withUnit(sig(r.efficiency), r.units, '/J')}</td>
            </tr>
          ))}
          {sorted.length === 0 && (
            <tr>
              <td colSpan={8} className="muted">
                none yet
              </td>
            </tr>
          )}
        </tbody>
      </table>
      </div>
    </div>
  );
}
