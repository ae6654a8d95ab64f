import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { BackendChoice, DeviceInfo, Sample } from '../../shared/device';
import { backendChoices } from '../../shared/backends';
import type { RingSeries } from '../../core/decimate';
import { TimeChart } from '../components/TimeChart';
import { SimBadge } from '../components/Badges';
import { SelectField } from '../components/Fields';
import { useDevices } from '../state/devices';
import { live, type LiveMetric } from '../state/live';
import { idle, pollSamples, type ExtraMetric } from '../state/idle';
import { useLiveTick } from '../state/use-live';
import { formatWatts } from '../lib/format';
import { useSweep, isRunning } from '../state/sweep';
import { api } from '../api/client';
import { useConnection } from '../state/connection';
import { throttleText } from '../../shared/throttle';

const IDLE_INTERVAL_MS = 1000;
const subscribeIdle = (cb: () => void) => idle.subscribe(cb);
const idleVersion = () => idle.version;
let idleChoice: BackendChoice | null = null;

/** What a device card reads its gauges and sparklines from: the sweep's live store or the idle readings. */
interface SampleSource {
  latest: Map<string, Sample>;
  get(deviceId: string): Record<LiveMetric, RingSeries> | undefined;
  /** Utilisation, memory and memory clock history (idle readings only; a sweep streams power, clock, temperature). */
  extra?(deviceId: string): Record<ExtraMetric, RingSeries> | undefined;
  lastT: number | null;
}

/**
 * Reads every device about once a second (`sampleDevices`) while the page is shown, the window is visible and no
 * sweep streams samples; stops when the page unmounts or the window is hidden.
 */
function useIdleSampling(choice: BackendChoice, running: boolean): { error: string | null } {
  const [error, setError] = useState<string | null>(null);
  const runningRef = useRef(running);
  runningRef.current = running;
  useEffect(() => {
    // Keep the history across visits to the page unless another backend is read.
    if (idleChoice !== choice) idle.reset();
    idleChoice = choice;
    setError(null);
    let stop: (() => void) | null = null;
    const start = () => {
      stop ??= pollSamples({
        intervalMs: IDLE_INTERVAL_MS,
        sample: async () => (await api.sampleDevices(choice === 'auto' ? {} : { backend: choice })).samples,
        onSamples: (samples) => {
          idle.add(samples);
          setError(null);
        },
        onError: (e) => setError((e as Error).message),
        active: () => !runningRef.current && !live.streaming(),
      });
    };
    const halt = () => {
      stop?.();
      stop = null;
    };
    const onVisibility = () => (document.visibilityState === 'visible' ? start() : halt());
    onVisibility();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      halt();
    };
  }, [choice]);
  return { error };
}

const WINDOWS = [
  { s: 300, label: '5 min' },
  { s: 900, label: '15 min' },
  { s: 3600, label: '60 min' },
] as const;
const CHART_POINTS = 300;

export function DevicesPage() {
  const { devices, backend, reason, loading, error, load } = useDevices();
  const conn = useConnection();
  const sweep = useSweep();
  const running = isRunning(sweep);
  const [choice, setChoice] = useState<BackendChoice>('auto');
  const [windowS, setWindowS] = useState<number>(300);
  const [other, setOther] = useState<{ backend: string; reason: string; devices: DeviceInfo[] } | null>(null);
  useLiveTick(1000);
  useSyncExternalStore(subscribeIdle, idleVersion);
  const idleSampling = useIdleSampling(choice, running);
  const streaming = running || live.streaming();
  const source: SampleSource = streaming ? live : idle;

  // Limits change during a sweep and are restored after it: keep them fresh.
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), running ? 3000 : 10_000);
    return () => clearInterval(t);
  }, [load, running]);

  useEffect(() => {
    if (choice === 'auto') return setOther(null);
    let stale = false;
    api
      .listDevices({ backend: choice })
      .then((r) => !stale && setOther(r))
      .catch((e) => !stale && setOther({ backend: choice, reason: (e as Error).message, devices: [] }));
    return () => {
      stale = true;
    };
  }, [choice]);

  const shown = other ?? { backend, reason, devices };
  const gpus = shown.devices.filter((d) => d.kind === 'gpu');
  const cpus = shown.devices.filter((d) => d.kind === 'cpu');
  const raplWhy = /CPU power \(RAPL\): (.*)$/.exec(shown.reason)?.[1] ?? null;
  const unauthorised = conn === 'unauthorized';
  return (
    <section className="page" aria-labelledby="devices-title">
      <header className="page-head">
        <h2 id="devices-title">Devices</h2>
        <div className="row">
          <div className="seg" role="group" aria-label="Chart window" data-testid="chart-window">
            {WINDOWS.map((w) => (
              <button key={w.s} className={windowS === w.s ? 'active' : ''} aria-pressed={windowS === w.s} onClick={() => setWindowS(w.s)}>
                last {w.label}
              </button>
            ))}
          </div>
          <SelectField<BackendChoice> label="Backend" value={choice} options={backendChoices} onChange={setChoice} testId="backend-select" />
          <button onClick={() => void load()} disabled={loading || unauthorised}>
            Refresh
          </button>
        </div>
      </header>
      {unauthorised ? (
        <p className="error" data-testid="devices-unauthorised">
          Devices cannot be read until this page is authorised (see above).
        </p>
      ) : (
        <>
          <p className="muted" data-testid="backend-line">
            Backend <strong>{shown.backend || '…'}</strong>
            {shown.reason ? ` — ${shown.reason}` : ''}
          </p>
          {error && <p className="error">{error}</p>}
          {shown.devices.length > 0 && (
            <p className="muted small" data-testid="gauge-source" data-source={streaming ? 'sweep' : 'idle'}>
              {streaming
                ? 'Readings and charts show the running sweep’s samples (power, SM clock, temperature; utilisation and memory charts resume after it).'
                : idleSampling.error
                  ? `Idle readings unavailable: ${idleSampling.error}`
                  : 'Idle readings, once a second while this page is open (the last 60 min are kept); limits refresh every few seconds.'}
            </p>
          )}
          <div className="device-list">
            {gpus.map((d) => (
              <DeviceCard key={d.id} d={d} source={source.latest.has(d.id) ? source : live} windowS={windowS} />
            ))}
            {!loading && !error && gpus.length === 0 && (
              <p className="muted" data-testid="empty-state">
                No GPUs found on this backend. Choose <strong>sim</strong> above to try CapLab on simulated GPUs, or <strong>auto</strong> to find real ones.
              </p>
            )}
          </div>
          {shown.devices.length + (raplWhy ? 1 : 0) > 0 && (
            <section className="cpu-packages" data-testid="cpu-packages" aria-labelledby="cpu-title">
              <h3 id="cpu-title">CPU packages (RAPL)</h3>
              {cpus.length === 0 ? (
                <p className="muted" data-testid="cpu-not-reported">
                  not reported{raplWhy ? `: ${raplWhy}` : ''}
                </p>
              ) : (
                <div className="cpu-grid">
                  {cpus.map((d) => (
                    <CpuCard key={d.id} d={d} source={source.latest.has(d.id) ? source : live} windowS={windowS} />
                  ))}
                </div>
              )}
            </section>
          )}
        </>
      )}
    </section>
  );
}

const NR = 'not reported';
const num = (v: number | null | undefined, unit: string, digits = 0) => (v === null || v === undefined || !Number.isFinite(v) ? null : `${v.toFixed(digits)} ${unit}`);

/** One reading; `raw` (the unrounded number) is kept in data-value so a test can see it change. */
function Reading({ label, value, testId, title, raw }: { label: string; value: string | null; testId: string; title?: string; raw?: number | null }) {
  return (
    <div className={`reading ${value === null ? 'nr' : ''}`} data-testid={testId} title={title} data-value={raw ?? ''}>
      <span className="reading-label">{label}</span>
      <span className="reading-value">{value ?? NR}</span>
    </div>
  );
}

function chartData(source: SampleSource, id: string, windowS: number) {
  const since = (source.lastT ?? 0) - windowS;
  const rec = source.get(id);
  const ex = source.extra?.(id);
  const empty = { t: [], v: [] };
  const pick = (r: RingSeries | undefined) => (r ? r.decimated(CHART_POINTS, since) : empty);
  return {
    power: pick(rec?.power_w),
    limit: pick(rec?.limit_w),
    sm: pick(rec?.sm_clock_mhz),
    temp: pick(rec?.temp_c),
    util: pick(ex?.util_gpu),
    mem: pick(ex?.mem_used_mb),
    memClock: pick(ex?.mem_clock_mhz),
  };
}

function DeviceCard({ d, source, windowS }: { d: DeviceInfo; source: SampleSource; windowS: number }) {
  const s: Sample | undefined = source.latest.get(d.id);
  const c = chartData(source, d.id, windowS);
  const nowT = source.lastT;
  const max = d.max_limit_w ?? undefined;
  const memTotal = d.memory_total_mb ?? null;
  const memText = s?.mem_used_mb == null ? null : `${(s.mem_used_mb / 1024).toFixed(1)} / ${memTotal === null ? `${NR} (total)` : `${(memTotal / 1024).toFixed(1)} GiB`}`;
  const memPct = s?.mem_used_mb != null && memTotal ? ` (${Math.round((100 * s.mem_used_mb) / memTotal)} %)` : '';
  const limitNow = s?.limit_w ?? d.limit_w;
  const powerText = s?.power_w == null ? null : `${s.power_w.toFixed(0)} W of ${formatWatts(limitNow)}`;
  const notReported = d.simulated ? `${NR} (not simulated)` : `${NR} by ${d.backend}`;
  return (
    <article className={`card device ${d.simulated ? 'is-sim' : ''}`} data-testid="device-card" data-device-id={d.id}>
      <header>
        <h3>
          <span className="dev-index">{d.kind.toUpperCase()} {d.index}</span> {d.name}
        </h3>
        {d.simulated && <SimBadge />}
      </header>
      {d.simulated && d.sensors.note && <p className="sim-note small" data-testid="sim-note">{d.sensors.note}</p>}
      <div className="device-body">
        <div className="device-side">
          <div className="readings">
            <Reading label="Utilisation" value={num(s?.util_gpu, '%')} testId="r-util" />
            <Reading label="Memory used" value={memText === null ? null : memText + memPct} testId="r-mem" />
            <Reading label="Power" value={powerText} raw={s?.power_w} testId="r-power" title={s ? `${s.power_kind} reading` : undefined} />
            <Reading label="Enforced limit" value={num(d.enforced_limit_w, 'W')} testId="r-enforced" />
            <Reading label="SM clock" value={num(s?.sm_clock_mhz, 'MHz')} testId="r-sm" />
            <Reading label="Memory clock" value={num(s?.mem_clock_mhz, 'MHz')} testId="r-memclock" />
            <Reading label="Temperature" value={num(s?.temp_c, '°C')} testId="r-temp" />
            <Reading label="Fan" value={null} testId="r-fan" title={notReported} />
            <Reading label="Throttle reasons" value={s && throttleText(s.throttle_reasons) !== NR ? throttleText(s.throttle_reasons) : null} testId="r-throttle" />
          </div>
          <p className="small muted" data-testid="r-processes">
            Processes: {notReported}
          </p>
          <dl className="facts">
            <dt>Limit</dt>
            <dd data-testid="device-limit">{formatWatts(d.limit_w)}</dd>
            <dt>Range</dt>
            <dd>
              {formatWatts(d.min_limit_w)} – {formatWatts(d.max_limit_w)} <span className="muted">(default {formatWatts(d.default_limit_w)})</span>
            </dd>
            <dt>Sensors</dt>
            <dd>
              power {d.sensors.power_kinds.join(' + ') || 'none'}; energy counter {d.sensors.energy_counter ? `yes (${d.sensors.energy_counter_check})` : 'no'}; update {d.sensors.update_period_ms == null ? 'not measured' : `${d.sensors.update_period_ms} ms`}
            </dd>
            <dt>Vendor</dt>
            <dd>
              {d.vendor} · {d.backend}
              {d.driver ? ` · driver ${d.driver}` : ''}
              {d.vbios ? ` · VBIOS ${d.vbios}` : ''}
            </dd>
            {d.uuid && (
              <>
                <dt>UUID</dt>
                <dd className="mono small">{d.uuid}</dd>
              </>
            )}
          </dl>
          {!d.simulated && d.sensors.note && <p className="muted small">{d.sensors.note}</p>}
        </div>
        <div className="device-charts">
          <TimeChart title="Power" unit="W" testId="chart-power" nowT={nowT} windowS={windowS} min={0} max={max} emptyText="no readings yet" lines={[{ label: 'power', data: c.power, color: '#4e9af1' }, { label: 'limit', data: c.limit, color: '#f28e2b', dashed: true }]} />
          <TimeChart title="Utilisation" unit="%" testId="chart-util" nowT={nowT} windowS={windowS} min={0} max={100} emptyText={s && s.util_gpu == null ? NR : 'no readings yet'} lines={[{ label: 'GPU', data: c.util, color: '#76b7b2' }]} />
          <TimeChart title="Memory used" unit="GiB" testId="chart-mem" nowT={nowT} windowS={windowS} min={0} max={memTotal ? memTotal / 1024 : undefined} emptyText={s && s.mem_used_mb == null ? NR : 'no readings yet'} lines={[{ label: 'used', data: { t: c.mem.t, v: c.mem.v.map((v) => (v == null ? null : v / 1024)) }, color: '#b07aa1' }]} />
          <TimeChart title="Clocks" unit="MHz" testId="chart-clock" nowT={nowT} windowS={windowS} min={0} emptyText="no readings yet" lines={[{ label: 'SM', data: c.sm, color: '#59a14f' }, { label: 'memory', data: c.memClock, color: '#edc948', dashed: true }]} />
          <TimeChart title="Temperature" unit="°C" testId="chart-temp" nowT={nowT} windowS={windowS} emptyText={s && s.temp_c == null ? NR : 'no readings yet'} lines={[{ label: 'temperature', data: c.temp, color: '#e15759' }]} />
        </div>
      </div>
    </article>
  );
}

function CpuCard({ d, source, windowS }: { d: DeviceInfo; source: SampleSource; windowS: number }) {
  const s = source.latest.get(d.id);
  const c = chartData(source, d.id, windowS);
  return (
    <article className="card device cpu" data-testid="cpu-card" data-device-id={d.id}>
      <header>
        <h3>
          <span className="dev-index">CPU {d.index}</span> {d.name}
        </h3>
      </header>
      <div className="readings">
        <Reading label="Package power" value={num(s?.power_w, 'W')} testId="r-cpu-power" />
        <Reading label="Limit" value={d.limit_w === null ? null : formatWatts(d.limit_w)} testId="r-cpu-limit" />
      </div>
      <TimeChart title="Package power" unit="W" testId="chart-cpu-power" nowT={source.lastT} windowS={windowS} min={0} emptyText="no readings yet" lines={[{ label: 'power', data: c.power, color: '#4e9af1' }]} />
    </article>
  );
}
