/**
 * nvidia-smi backend: the fallback when libnvidia-ml cannot be loaded through FFI but the tool works.
 *
 * Devices come from one `--query-gpu=... --format=csv,noheader,nounits` call. Samples come from ONE long-running
 * `nvidia-smi --query-gpu=... -lms N` child whose CSV rows are parsed as a stream; sample() returns the latest row
 * per GPU. `[N/A]`, `[Not Supported]`, `[Unknown Error]` and friends become null with a note, never a crash.
 * Which optional fields exist (power.draw.instant, power.draw.average, clocks_event_reasons.active) is asked of
 * `nvidia-smi --help-query-gpu` once, so older drivers get the older names instead of an "invalid field" error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { DeviceInfo, Sample, SensorKind } from '../../../shared/device';
import { BackendError, type BackendModule, type GpuBackend } from './backend';
import { findOnPath, formatWatts, runTool, tail } from './tool-exec';
import { ToolBackend, type ToolBackendOptions } from './tool-backend';

export const LIST_FIELDS = [
  'index',
  'name',
  'uuid',
  'pci.bus_id',
  'driver_version',
  'vbios_version',
  'power.limit',
  'enforced.power.limit',
  'power.min_limit',
  'power.max_limit',
  'power.default_limit',
] as const;

/** Values nvidia-smi prints instead of a number. */
const NOT_A_VALUE = /^\[?(N\/A|Not Supported|Unknown Error|Insufficient Permissions|GPU is lost|Requested functionality has been deprecated|Not Available)\]?$/i;

export interface Parsed<T> {
  value: T | null;
  note: string | null;
}

/** One CSV cell as a number: null with a note for [N/A] and friends or anything unparsable. */
export function parseNumber(cell: string | undefined, field = 'value'): Parsed<number> {
  const raw = (cell ?? '').trim();
  if (raw === '') return { value: null, note: `${field}: empty` };
  if (NOT_A_VALUE.test(raw)) return { value: null, note: `${field}: ${raw.replace(/^\[|\]$/g, '')}` };
  const hex = /^0x[0-9a-f]+$/i.test(raw);
  const n = hex ? parseInt(raw, 16) : Number(raw.replace(/\s*(W|MHz|MiB|%|C)$/i, ''));
  if (!Number.isFinite(n)) return { value: null, note: `${field}: unparsable "${raw}"` };
  return { value: n, note: null };
}

export function parseText(cell: string | undefined): string | null {
  const raw = (cell ?? '').trim();
  return raw === '' || NOT_A_VALUE.test(raw) ? null : raw;
}

/** Splits one `--format=csv,noheader` line. nvidia-smi separates with ", " and does not quote. */
export function splitCsv(line: string): string[] {
  return line.split(',').map((c) => c.trim());
}

/** `2026/11/30 09:45:57.673` (local time, as nvidia-smi prints it) -> epoch seconds, or null. */
export function parseNvTimestamp(s: string): number | null {
  const m = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(s.trim());
  if (!m) return null;
  const ms = m[7] ? Number((m[7] + '000').slice(0, 3)) : 0;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
  return d.getTime() / 1000;
}

/** Field names listed by `nvidia-smi --help-query-gpu` (each appears quoted, e.g. "power.draw.instant"). */
export function parseHelpQueryGpu(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/"([a-z0-9_.]+)"/gi)) out.add(m[1]!.toLowerCase());
  return out;
}

/** Parses the device-list query (fields in LIST_FIELDS order). Notes collect every [N/A]-style cell. */
export function parseDeviceList(csv: string, notes: string[] = []): DeviceInfo[] {
  const out: DeviceInfo[] = [];
  for (const line of csv.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const c = splitCsv(line);
    if (c.length < LIST_FIELDS.length) {
      notes.push(`nvidia-smi: skipped a device row with ${c.length} of ${LIST_FIELDS.length} fields: "${line.trim()}"`);
      continue;
    }
    const index = parseNumber(c[0], 'index').value;
    if (index === null) {
      notes.push(`nvidia-smi: skipped a device row without an index: "${line.trim()}"`);
      continue;
    }
    const num = (i: number, f: string) => {
      const p = parseNumber(c[i], f);
      if (p.note) notes.push(`nvidia-smi: GPU ${index}: ${p.note}`);
      return p.value;
    };
    out.push({
      id: `nvidia-smi:${index}`,
      index,
      backend: 'nvidia-smi',
      kind: 'gpu',
      name: parseText(c[1]) ?? `NVIDIA GPU ${index}`,
      vendor: 'NVIDIA',
      simulated: false,
      uuid: parseText(c[2]),
      pci_bus_id: parseText(c[3]),
      driver: parseText(c[4]),
      vbios: parseText(c[5]),
      limit_w: num(6, 'power.limit'),
      enforced_limit_w: num(7, 'enforced.power.limit'),
      min_limit_w: num(8, 'power.min_limit'),
      max_limit_w: num(9, 'power.max_limit'),
      default_limit_w: num(10, 'power.default_limit'),
      sensors: { power_kinds: [], energy_counter: false, energy_counter_check: 'absent', update_period_ms: null },
    });
  }
  return out;
}

/** The streaming query for the fields this nvidia-smi knows. */
export interface StreamLayout {
  fields: string[];
  instant: string | null;
  average: string | null;
  reasons: string | null;
}

export function streamLayout(known: Set<string> | null): StreamLayout {
  const has = (f: string) => known === null || known.has(f);
  const instant = has('power.draw.instant') ? 'power.draw.instant' : null;
  // Without a separate instant field, power.draw is the best there is (a 1 s average on Ampere and newer).
  const average = has('power.draw.average') ? 'power.draw.average' : instant ? null : 'power.draw';
  const reasons = has('clocks_event_reasons.active') ? 'clocks_event_reasons.active' : has('clocks_throttle_reasons.active') ? 'clocks_throttle_reasons.active' : null;
  const fields = ['timestamp', 'index'];
  if (instant) fields.push(instant);
  if (average) fields.push(average);
  fields.push('clocks.sm', 'clocks.mem', 'temperature.gpu', 'utilization.gpu', 'utilization.memory', 'memory.used', 'enforced.power.limit');
  if (reasons) fields.push(reasons);
  return { fields, instant, average, reasons };
}

export interface StreamRow {
  index: number;
  sample: Sample;
  notes: string[];
}

/** One line of the streaming query -> a Sample for `backend:index`. `fallbackT` is used when the timestamp is unparsable. */
export function parseStreamRow(line: string, layout: StreamLayout, fallbackT: number, backend = 'nvidia-smi'): StreamRow | null {
  const c = splitCsv(line);
  if (c.length < layout.fields.length) return null;
  const at = (f: string | null) => (f === null ? undefined : c[layout.fields.indexOf(f)]);
  const index = parseNumber(at('index'), 'index').value;
  if (index === null) return null;
  const notes: string[] = [];
  const num = (f: string | null) => {
    if (f === null) return null;
    const p = parseNumber(at(f), f);
    if (p.note) notes.push(p.note);
    return p.value;
  };
  const instant = num(layout.instant);
  const average = num(layout.average);
  const kind: SensorKind = instant !== null ? 'instant' : 'average';
  const sample: Sample = {
    device_id: `${backend}:${index}`,
    t: parseNvTimestamp(at('timestamp') ?? '') ?? fallbackT,
    power_w: instant ?? average,
    power_kind: kind,
    power_avg_w: average,
    energy_mj: null,
    sm_clock_mhz: num('clocks.sm'),
    mem_clock_mhz: num('clocks.mem'),
    temp_c: num('temperature.gpu'),
    util_gpu: num('utilization.gpu'),
    util_mem: num('utilization.memory'),
    mem_used_mb: num('memory.used'),
    limit_w: num('enforced.power.limit'),
    throttle_reasons: num(layout.reasons),
  };
  return { index, sample, notes };
}

export interface NvidiaSmiOptions extends ToolBackendOptions {
  /** -lms interval of the streaming child (default 100 ms). */
  intervalMs?: number;
  /** A GPU whose latest row is older than this is left out of samples (default max(3 s, 10 intervals)). */
  staleMs?: number;
}

function classifyFailure(text: string): 'no-device' | 'unavailable' | 'permission' | 'failed' {
  if (/no devices were found/i.test(text)) return 'no-device';
  if (/couldn't communicate with the nvidia driver|driver\/library version mismatch|not found|NVML.*not/i.test(text)) return 'unavailable';
  if (/insufficient permissions|permission denied/i.test(text)) return 'permission';
  return 'failed';
}

export class NvidiaSmiBackend extends ToolBackend<NvidiaSmiOptions> implements GpuBackend {
  readonly name = 'nvidia-smi' as const;
  readonly simulated = false;
  private layout: StreamLayout = streamLayout(null);
  private child: ChildProcess | null = null;
  private latest = new Map<number, { sample: Sample; at: number }>();
  private restarts: number[] = [];
  private closed = false;
  private stale = new Set<number>();
  /** Lines parsed from the stream, for cost measurements. */
  rowsParsed = 0;

  private constructor(
    readonly toolPath: string,
    opts: NvidiaSmiOptions,
  ) {
    super(opts);
  }

  capArgv(index: number, watts: number): string[] {
    return nvidiaSmiCapArgv(index, watts);
  }

  /** Finds nvidia-smi, lists GPUs and learns its field names. Throws BackendError unavailable | no-device. */
  static async open(opts: NvidiaSmiOptions = {}): Promise<NvidiaSmiBackend> {
    const env = opts.env ?? process.env;
    const tool = findOnPath('nvidia-smi', env);
    if (!tool) throw new BackendError('nvidia-smi: not on PATH', 'nvidia-smi', 'unavailable');
    const b = new NvidiaSmiBackend(tool, opts);
    await b.refreshDevices();
    if (b.devices.length === 0) throw new BackendError('nvidia-smi: lists no GPU', 'nvidia-smi', 'no-device');
    const help = await runTool([tool, '--help-query-gpu'], { env, timeoutMs: opts.toolTimeoutMs ?? 10_000 });
    const known = help.code === 0 ? parseHelpQueryGpu(help.stdout) : null;
    b.layout = streamLayout(known && known.size > 10 ? known : null);
    for (const d of b.devices) b.applySensorFacts(d);
    return b;
  }

  private applySensorFacts(d: DeviceInfo): void {
    const kinds: SensorKind[] = [];
    if (this.layout.instant) kinds.push('instant');
    if (this.layout.average) kinds.push('average');
    d.sensors = {
      power_kinds: kinds,
      energy_counter: false,
      energy_counter_check: 'absent',
      update_period_ms: null,
      note: `nvidia-smi fallback: no energy counter; power from ${this.layout.instant ?? this.layout.average}${this.layout.instant ? '' : ' (a 1 s average on Ampere and newer)'}`,
    };
  }

  private async refreshDevices(): Promise<void> {
    const r = await runTool([this.toolPath, `--query-gpu=${LIST_FIELDS.join(',')}`, '--format=csv,noheader,nounits'], { env: this.env, timeoutMs: this.opts.toolTimeoutMs ?? 15_000 });
    if (r.code !== 0) {
      const text = `${r.stdout}\n${r.stderr}\n${r.error ?? ''}`;
      throw new BackendError(`nvidia-smi: ${tail(text) || `exit code ${r.code}`}`, 'nvidia-smi', classifyFailure(text));
    }
    const notes: string[] = [];
    const devices = parseDeviceList(r.stdout, notes);
    for (const n of notes) this.warn(n);
    for (const d of devices) this.applySensorFacts(d);
    this.devices = devices;
  }

  async listDevices(): Promise<DeviceInfo[]> {
    await this.refreshDevices();
    return this.devices.map((d) => structuredClone(d));
  }

  /** The argv of the streaming child. */
  streamArgv(): string[] {
    return [this.toolPath, `--query-gpu=${this.layout.fields.join(',')}`, '--format=csv,noheader,nounits', '-lms', String(this.opts.intervalMs ?? 100)];
  }

  /** Starts the streaming child if it is not running. */
  startStream(): void {
    if (this.child || this.closed) return;
    const [file, ...args] = this.streamArgv();
    const child = spawn(file!, args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString();
    });
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => this.onLine(line));
    child.on('error', (e) => this.warn(`nvidia-smi: streaming child failed: ${e.message}`));
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (this.closed) return;
      this.warn(`nvidia-smi: streaming child exited (${signal ?? `code ${code}`})${stderr ? ': ' + tail(stderr) : ''}; restarting`, `exit-${Date.now()}`);
      const now = Date.now();
      this.restarts = this.restarts.filter((t) => now - t < 60_000);
      if (this.restarts.length >= 3) {
        this.warn('nvidia-smi: streaming child keeps exiting; sampling stopped');
        return;
      }
      this.restarts.push(now);
      setTimeout(() => this.startStream(), 1000).unref();
    });
  }

  private onLine(line: string): void {
    if (!line.trim()) return;
    const row = parseStreamRow(line, this.layout, this.now(), 'nvidia-smi');
    if (!row) {
      this.warn(`nvidia-smi: unparsable row "${line.trim().slice(0, 200)}"`, 'unparsable');
      return;
    }
    this.rowsParsed++;
    for (const n of row.notes) this.warn(`nvidia-smi: GPU ${row.index}: ${n}; recorded as null`, `${row.index}:${n}`);
    this.latest.set(row.index, { sample: row.sample, at: performance.now() });
  }

  async sample(indexes: number[]): Promise<Sample[]> {
    if (!this.child) {
      this.startStream();
      const deadline = performance.now() + Math.max(3000, 5 * (this.opts.intervalMs ?? 100));
      while (performance.now() < deadline && !indexes.every((i) => this.latest.has(i))) await new Promise((r) => setTimeout(r, 10));
    }
    const staleMs = this.opts.staleMs ?? Math.max(3000, 10 * (this.opts.intervalMs ?? 100));
    const out: Sample[] = [];
    const now = performance.now();
    for (const i of indexes) {
      const l = this.latest.get(i);
      if (!l) continue;
      if (now - l.at > staleMs) {
        if (!this.stale.has(i)) {
          this.stale.add(i);
          this.warn(`nvidia-smi: GPU ${i} stopped reporting (last row ${((now - l.at) / 1000).toFixed(1)} s ago); left out of samples`);
        }
        continue;
      }
      this.stale.delete(i);
      out.push({ ...l.sample });
    }
    return out;
  }

  /** nvidia-smi has no energy counter query: window energy comes from integrating power. */
  async readEnergyMj(_index: number): Promise<number | null> {
    return null;
  }

  private async query(index: number, field: string): Promise<number | null> {
    const r = await runTool([this.toolPath, '-i', String(index), `--query-gpu=${field}`, '--format=csv,noheader,nounits'], { env: this.env, timeoutMs: this.opts.toolTimeoutMs ?? 15_000 });
    if (r.code !== 0) throw new BackendError(`nvidia-smi: reading ${field} of GPU ${index}: ${tail(`${r.stdout}\n${r.stderr}\n${r.error ?? ''}`)}`, 'nvidia-smi', 'failed');
    return parseNumber(r.stdout.split('\n')[0], field).value;
  }

  async getPowerLimit(index: number): Promise<number> {
    const v = await this.query(index, 'power.limit');
    if (v === null) throw new BackendError(`nvidia-smi: GPU ${index} reports no power limit`, 'nvidia-smi', 'failed');
    return v;
  }

  protected enforcedLimit(index: number): Promise<number | null> {
    return this.query(index, 'enforced.power.limit');
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 2000);
      child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}

/** `nvidia-smi -i INDEX -pl W`: sets a power limit (also used by NVML as a normal user, through sudo). */
export function nvidiaSmiCapArgv(index: number, watts: number): string[] {
  return ['nvidia-smi', '-i', String(index), '-pl', formatWatts(watts)];
}

/** Registry entry: NVIDIA GPUs through nvidia-smi, where NVML cannot be loaded. */
export const nvidiaSmiBackend: BackendModule = {
  id: 'nvidia-smi',
  auto: true,
  vendor: 'nvidia',
  open: async (ctx) => ({ backend: await NvidiaSmiBackend.open({ env: ctx.env, onWarning: ctx.onWarning, onPty: ctx.onPty, privilege: ctx.privilege, intervalMs: ctx.intervalMs, toolTimeoutMs: ctx.toolTimeoutMs }) }),
  chosen: (b, requested) => `${requested ? 'requested; using ' : 'using nvidia-smi at '}${(b as NvidiaSmiBackend).toolPath}`,
};
