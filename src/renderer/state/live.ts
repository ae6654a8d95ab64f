import { RingSeries, type XY } from '../../core/decimate';
import type { EventPayload } from '../../shared/api';
import type { Sample } from '../../shared/device';
import type { PhaseMark } from '../lib/live-figure';

/** Live metrics per device kept in bounded rings (an hour at 10 Hz fits), outside React state for speed. */
const LIVE_CAPACITY = 36_000;
export type LiveMetric = 'power_w' | 'sm_clock_mhz' | 'temp_c' | 'limit_w';
export const LIVE_METRICS: LiveMetric[] = ['power_w', 'sm_clock_mhz', 'temp_c', 'limit_w'];

type Listener = () => void;

/** A sweep's stored traces, phases and throughput, as the console replays them (console-replay.ts builds it). */
export interface SweepHistory {
  sweepId: number;
  devices: ({ id: string } & Record<LiveMetric, XY>)[];
  throughput: XY;
  phases: PhaseMark[];
}

/** One ring per plotted metric of a device. */
export function metricSeries(capacity: number): Record<LiveMetric, RingSeries> {
  return { power_w: new RingSeries(capacity), sm_clock_mhz: new RingSeries(capacity), temp_c: new RingSeries(capacity), limit_w: new RingSeries(capacity) };
}

export function pushMetrics(rec: Record<LiveMetric, RingSeries>, s: Sample): void {
  rec.power_w.push(s.t, s.power_w);
  rec.sm_clock_mhz.push(s.t, s.sm_clock_mhz ?? null);
  rec.temp_c.push(s.t, s.temp_c ?? null);
  rec.limit_w.push(s.t, s.limit_w ?? null);
}

class LiveStore {
  private series = new Map<string, Record<LiveMetric, RingSeries>>();
  readonly throughput = new RingSeries(LIVE_CAPACITY);
  readonly latest = new Map<string, Sample>();
  phases: PhaseMark[] = [];
  sweepId: number | null = null;
  /** Bumped on every change; plots redraw when it moved since their last frame. */
  version = 0;
  /** Samples accepted in total (the bench reads it). */
  received = 0;
  lastT: number | null = null;
  firstT: number | null = null;
  /** Wall-clock ms (Date.now) when the last batch of samples arrived; 0: none yet. */
  receivedAt = 0;
  private listeners = new Set<Listener>();

  devices(): string[] {
    return [...this.series.keys()].sort();
  }

  get(deviceId: string): Record<LiveMetric, RingSeries> | undefined {
    return this.series.get(deviceId);
  }

  reset(sweepId: number | null): void {
    this.series.clear();
    this.throughput.clear();
    this.phases = [];
    this.sweepId = sweepId;
    this.lastT = null;
    this.firstT = null;
    this.bump();
  }

  addSamples(p: EventPayload<'samples'>): void {
    if (this.sweepId !== null && p.sweep_id !== this.sweepId) this.reset(p.sweep_id);
    else if (this.sweepId === null) this.sweepId = p.sweep_id;
    for (const s of p.samples) {
      let rec = this.series.get(s.device_id);
      if (!rec) {
        rec = metricSeries(LIVE_CAPACITY);
        this.series.set(s.device_id, rec);
      }
      pushMetrics(rec, s);
      this.latest.set(s.device_id, s);
      if (this.lastT === null || s.t > this.lastT) this.lastT = s.t;
      if (this.firstT === null || s.t < this.firstT) this.firstT = s.t;
      this.received++;
    }
    for (const m of this.phases) if (Number.isNaN(m.t)) m.t = p.samples[0]?.t ?? NaN;
    this.receivedAt = Date.now();
    this.bump();
  }

  addThroughput(p: EventPayload<'throughput'>): void {
    if (this.sweepId !== null && p.sweep_id !== this.sweepId) return;
    this.throughput.push(p.t, p.rate);
    this.bump();
  }

  addPhase(p: EventPayload<'sweep.progress'>): void {
    if (this.sweepId !== null && p.sweep_id !== this.sweepId) return;
    const last = this.phases.at(-1);
    if (last && last.phase === p.phase && last.run_id === p.run_id) return;
    // Samples arrive in batches; a phase that starts before the first batch is placed at its first sample.
    this.phases.push({ t: this.lastT ?? NaN, phase: p.phase, run_id: p.run_id, cap_w: p.cap_w });
    if (this.phases.length > 2000) this.phases.splice(0, this.phases.length - 2000);
    this.bump();
  }

  /**
   * Lays a sweep's stored history (console replay) under what has streamed in meanwhile: per series, the stored
   * points older than the first streamed one, then the streamed ones. Resets first if another sweep was shown.
   */
  mergeHistory(h: SweepHistory): void {
    if (this.sweepId !== h.sweepId) this.reset(h.sweepId);
    const merge = (ring: RingSeries, past: XY) => {
      const streamed = ring.decimated(ring.capacity);
      const first = streamed.t[0] ?? Infinity;
      ring.clear();
      for (let i = 0; i < past.t.length && past.t[i]! < first; i++) ring.push(past.t[i]!, past.v[i] ?? null);
      for (let i = 0; i < streamed.t.length; i++) ring.push(streamed.t[i]!, streamed.v[i] ?? null);
    };
    for (const d of h.devices) {
      let rec = this.series.get(d.id);
      if (!rec) {
        rec = metricSeries(LIVE_CAPACITY);
        this.series.set(d.id, rec);
      }
      for (const m of LIVE_METRICS) {
        merge(rec[m], d[m]);
        const t = d[m].t;
        if (t.length) {
          this.firstT = Math.min(this.firstT ?? Infinity, t[0]!);
          this.lastT = Math.max(this.lastT ?? -Infinity, t.at(-1)!);
        }
      }
    }
    merge(this.throughput, h.throughput);
    const firstLive = this.phases.find((p) => !Number.isNaN(p.t))?.t ?? Infinity;
    this.phases = [...h.phases.filter((p) => p.t < firstLive), ...this.phases];
    this.bump();
  }

  /** A sweep streamed samples within the last `ms` milliseconds. */
  streaming(ms = 3000): boolean {
    return this.receivedAt > 0 && Date.now() - this.receivedAt < ms;
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private bump(): void {
    this.version++;
    for (const l of this.listeners) l();
  }
}

export const live = new LiveStore();

/** Recent workload terminal output, replayed when the console mounts (capped). */
export class PtyBuffer {
  private chunks: string[] = [];
  private size = 0;
  runId: number | null = null;
  /** What the user calls each run (r1: workload at cap), learnt from progress events before its output arrives. */
  private labels = new Map<number, string>();
  private listeners = new Set<(data: string) => void>();
  constructor(private readonly cap = 256 * 1024) {}

  push(p: EventPayload<'pty.data'>): void {
    if (this.runId !== p.run_id) {
      const label = this.labels.get(p.run_id);
      // Run 0 is a tuning session's job, one process over all its visits: it has a label and no run of its own.
      const banner = `\r\n\x1b[2m── ${label ? (p.run_id ? `${label} (run #${p.run_id} of the database)` : label) : `run #${p.run_id}`} ──\x1b[0m\r\n`;
      this.append(banner);
      this.runId = p.run_id;
    }
    this.append(p.data);
  }

  label(runId: number, text: string): void {
    this.labels.set(runId, text);
  }

  private append(data: string): void {
    this.chunks.push(data);
    this.size += data.length;
    while (this.size > this.cap && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
    for (const l of this.listeners) l(data);
  }

  text(): string {
    return this.chunks.join('');
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.runId = null;
    this.labels.clear();
  }

  subscribe(l: (data: string) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

export const ptyBuffer = new PtyBuffer();
