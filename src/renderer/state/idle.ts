import { RingSeries } from '../../core/decimate';
import type { Sample } from '../../shared/device';
import { metricSeries, pushMetrics, type LiveMetric } from './live';

/**
 * Idle readings of every device (`sampleDevices`, about once a second while the devices page is open and no sweep
 * streams samples). Kept apart from the sweep's live store so the console's traces never mix idle and sweep data.
 * Bounded: IDLE_CAPACITY points per metric and device (the Devices page's longest chart, 60 min at 1 Hz).
 */
const IDLE_CAPACITY = 3600;

/** Readings the Devices page charts beyond the sweep's live metrics (the live store keeps only those it plots). */
export type ExtraMetric = 'util_gpu' | 'mem_used_mb' | 'mem_clock_mhz';
export const EXTRA_METRICS: ExtraMetric[] = ['util_gpu', 'mem_used_mb', 'mem_clock_mhz'];

type Listener = () => void;

export class SampleHistory {
  private series = new Map<string, Record<LiveMetric, RingSeries>>();
  private extras = new Map<string, Record<ExtraMetric, RingSeries>>();
  readonly latest = new Map<string, Sample>();
  lastT: number | null = null;
  version = 0;
  private listeners = new Set<Listener>();

  constructor(readonly capacity = IDLE_CAPACITY) {}

  get(deviceId: string): Record<LiveMetric, RingSeries> | undefined {
    return this.series.get(deviceId);
  }

  extra(deviceId: string): Record<ExtraMetric, RingSeries> | undefined {
    return this.extras.get(deviceId);
  }

  add(samples: Sample[]): void {
    for (const s of samples) {
      let rec = this.series.get(s.device_id);
      if (!rec) {
        rec = metricSeries(this.capacity);
        this.series.set(s.device_id, rec);
      }
      // Readings arrive in time order per device; a repeated timestamp (no new reading) is not a new point.
      const last = rec.power_w.last();
      if (last && s.t <= last.t) continue;
      pushMetrics(rec, s);
      let ex = this.extras.get(s.device_id);
      if (!ex) {
        ex = { util_gpu: new RingSeries(this.capacity), mem_used_mb: new RingSeries(this.capacity), mem_clock_mhz: new RingSeries(this.capacity) };
        this.extras.set(s.device_id, ex);
      }
      for (const m of EXTRA_METRICS) ex[m].push(s.t, s[m] ?? null);
      this.latest.set(s.device_id, s);
      if (this.lastT === null || s.t > this.lastT) this.lastT = s.t;
    }
    this.bump();
  }

  reset(): void {
    this.series.clear();
    this.extras.clear();
    this.latest.clear();
    this.lastT = null;
    this.bump();
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  }

  private bump(): void {
    this.version++;
    for (const l of this.listeners) l();
  }
}

export const idle = new SampleHistory();

export interface PollOptions {
  intervalMs: number;
  /** Takes one reading; its promise settles before the next one is asked for (no overlapping calls). */
  sample(): Promise<Sample[]>;
  onSamples(samples: Sample[]): void;
  onError?(e: unknown): void;
  /** Polls only while this says so (page visible, no sweep streaming); asked before every reading. */
  active(): boolean;
  /** Wait after an error (the backend may be absent); default 5 × intervalMs. */
  errorBackoffMs?: number;
  setTimer?: (cb: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
}

/**
 * Polls `sample` every `intervalMs` while `active()` holds; returns `stop`. Readings that return after `stop`
 * are dropped. A reading is never requested while the previous one is still pending.
 */
export function pollSamples(o: PollOptions): () => void {
  const setT = o.setTimer ?? ((cb, ms) => setTimeout(cb, ms));
  const clearT = o.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  let stopped = false;
  let timer: unknown = null;
  const schedule = (ms: number) => {
    if (!stopped) timer = setT(tick, ms);
  };
  async function tick(): Promise<void> {
    timer = null;
    if (stopped) return;
    if (!o.active()) return schedule(o.intervalMs);
    try {
      const samples = await o.sample();
      if (stopped) return;
      o.onSamples(samples);
      schedule(o.intervalMs);
    } catch (e) {
      if (stopped) return;
      o.onError?.(e);
      schedule(o.errorBackoffMs ?? o.intervalMs * 5);
    }
  }
  schedule(0);
  return () => {
    stopped = true;
    if (timer !== null) clearT(timer);
  };
}
