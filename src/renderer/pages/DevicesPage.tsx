import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { BackendChoice, DeviceInfo, Sample } from '../../shared/device';
import { backendChoices } from '../../shared/backends';
import type { RingSeries } from '../../core/decimate';
import { Gauge } from '../components/Gauge';
import { Sparkline } from '../components/Sparkline';
import { SimBadge } from '../components/Badges';
import { SelectField } from '../components/Fields';
import { useDevices } from '../state/devices';
import { live, type LiveMetric } from '../state/live';
import { idle, pollSamples } from '../state/idle';
import { useLiveTick } from '../lib/use-live';
import { formatWatts } from '../lib/format';
import { useSweep, isRunning } from '../state/sweep';
import { api } from '../api/client';

const IDLE_INTERVAL_MS = 1000;
const subscribeIdle = (cb: () => void) => idle.subscribe(cb);
const idleVersion = () => idle.version;
let idleChoice: BackendChoice | null = null;

/** What a device card reads its gauges and sparklines from: the sweep's live store or the idle readings. */
interface SampleSource {
  latest: Map<string, Sample>;
  get(deviceId: string): Record<LiveMetric, RingSeries> | undefined;
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

export function DevicesPage() {
  const { devices, backend, reason, loading, error, load } = useDevices();
  const sweep = useSweep();
  const running = isRunning(sweep);
  const [choice, setChoice] = useState<BackendChoice>('auto');
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
  return (
    <section className="page" aria-labelledby="devices-title">
      <header className="page-head">
        <h2 id="devices-title">Devices</h2>
        <div className="row">
          <SelectField<BackendChoice> label="Backend" value={choice} options={backendChoices} onChange={setChoice} testId="backend-select" />
          <button onClick={() => void load()} disabled={loading}>
            Refresh
          </button>
        </div>
      </header>
      <p className="muted" data-testid="backend-line">
        Backend <strong>{shown.backend || '…'}</strong>
        {shown.reason ? ` — ${shown.reason}` : ''}
      </p>
      {error && <p className="error">{error}</p>}
      {shown.devices.length > 0 && (
        <p className="muted small" data-testid="gauge-source" data-source={streaming ? 'sweep' : 'idle'}>
          {streaming
            ? 'Gauges and sparklines show the running sweep’s samples.'
            : idleSampling.error
              ? `Idle readings unavailable: ${idleSampling.error}`
              : 'Idle readings, once a second while this page is open; limits refresh every few seconds.'}
        </p>
      )}
      <div className="cards">
        {shown.devices.map((d) => (
          <DeviceCard key={d.id} d={d} source={source.latest.has(d.id) ? source : live} />
        ))}
        {!loading && shown.devices.length === 0 && <p className="muted" data-testid="empty-state">No devices found on this backend. Choose <strong>sim</strong> above to try CapLab on simulated GPUs, or <strong>auto</strong> to find real ones.</p>}
      </div>
    </section>
  );
}

function DeviceCard({ d, source }: { d: DeviceInfo; source: SampleSource }) {
  const s = source.latest.get(d.id);
  const rec = source.get(d.id);
  const since = (source.lastT ?? 0) - 120;
  const max = d.max_limit_w ?? 700;
  return (
    <article className={`card device ${d.simulated ? 'is-sim' : ''}`} data-testid="device-card" data-device-id={d.id}>
      <header>
        <h3>
          <span className="dev-index">{d.kind.toUpperCase()} {d.index}</span> {d.name}
        </h3>
        {d.simulated && <SimBadge />}
      </header>
      <dl className="facts">
        <dt>Limit</dt>
        <dd data-testid="device-limit">{formatWatts(d.limit_w)}</dd>
        <dt>Range</dt>
        <dd>
          {formatWatts(d.min_limit_w)} – {formatWatts(d.max_limit_w)} <span className="muted">(default {formatWatts(d.default_limit_w)})</span>
        </dd>
        <dt>Enforced</dt>
        <dd>{formatWatts(d.enforced_limit_w)}</dd>
        <dt>Sensors</dt>
        <dd>
          power {d.sensors.power_kinds.join(' + ') || 'none'}; energy counter {d.sensors.energy_counter ? `yes (${d.sensors.energy_counter_check})` : 'no'}
        </dd>
        <dt>Update period</dt>
        <dd>{d.sensors.update_period_ms == null ? 'not measured' : `${d.sensors.update_period_ms} ms`}</dd>
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
      {d.sensors.note && <p className="muted small">{d.sensors.note}</p>}
      {d.kind === 'gpu' && (
        <>
          <div className="gauges">
            <Gauge label="Power" unit="W" value={s?.power_w ?? null} min={0} max={max} mark={s?.limit_w ?? d.limit_w} testId="gauge-power" />
            <Gauge label="SM clock" unit="MHz" value={s?.sm_clock_mhz ?? null} min={0} max={2100} testId="gauge-clock" />
            <Gauge label="Temperature" unit="°C" value={s?.temp_c ?? null} min={20} max={100} testId="gauge-temp" />
          </div>
          <div className="sparks">
            <Sparkline label="power, last 2 min" data={rec ? rec.power_w.decimated(160, since) : { t: [], v: [] }} min={0} max={max} color="#4e9af1" />
            <Sparkline label="SM clock, last 2 min" data={rec ? rec.sm_clock_mhz.decimated(160, since) : { t: [], v: [] }} min={0} color="#59a14f" />
            <Sparkline label="temperature, last 2 min" data={rec ? rec.temp_c.decimated(160, since) : { t: [], v: [] }} color="#e15759" />
          </div>
        </>
      )}
    </article>
  );
}
