/**
 * NVML backend: reads NVIDIA GPUs through libnvidia-ml via koffi (nvml-ffi.ts).
 *
 * A tick (sample()) reads per GPU: instant + 1 s average power in ONE nvmlDeviceGetFieldValues call (fields 186
 * and 185), SM/memory clocks, temperature, utilisation, used memory, clock-event reasons and the enforced limit —
 * each a few microseconds. The energy counter costs ~4 ms of CPU per call (the driver busy-waits), so it is never
 * read per tick: readEnergyMj() is for window boundaries. A call that a GPU does not support is dropped from later
 * ticks; a GPU that is lost mid-run is left out of samples and reported once through onWarning.
 *
 * At start (listDevices) each GPU's sensor is characterised: instant power is polled every ~1 ms for
 * `sensorCheckMs` to find its real update period (median interval between changes), and the energy counter is
 * read before and after that poll to check it is monotonic and agrees with the integrated instant power.
 */
import type { DeviceInfo, Sample, SensorFacts, SensorKind } from '../../../shared/device';
import { BackendError, type BackendModule, type GpuBackend } from './backend';
import { nvidiaSmiCapArgv } from './nvidia-smi';
import { setCap, validateCap, type SetCapResult } from './cap-setter';
import {
  NVML_CLOCK_MEM,
  NVML_CLOCK_SM,
  NVML_ERROR_DRIVER_NOT_LOADED,
  NVML_ERROR_NO_PERMISSION,
  NVML_ERROR_NOT_SUPPORTED,
  NVML_ERROR_FUNCTION_NOT_FOUND,
  NVML_FI_DEV_POWER_AVERAGE,
  NVML_FI_DEV_POWER_INSTANT,
  NvmlCallError,
  NVML_TOTAL_POWER_SAMPLES,
  NvmlLib,
  NvmlLoadError,
  SampleBuffer,
  type DeviceHandle,
} from './nvml-ffi';
import { isRoot } from './tool-exec';
import type { IPty } from 'node-pty';

export interface NvmlBackendOptions {
  /** Library to load (default libnvidia-ml.so.1 from the linker path). */
  libPath?: string;
  /** Characterise each sensor in listDevices (~sensorCheckMs of polling). Default true. */
  checkSensors?: boolean;
  sensorCheckMs?: number;
  /** Problems that do not stop sampling (a lost GPU, an unsupported field). */
  onWarning?: (message: string) => void;
  /** sudo pty for setting limits as a normal user (see cap-setter.ts). */
  onPty?: (p: IPty) => void;
  /** Environment for nvidia-smi/sudo when setting limits as a normal user. */
  env?: NodeJS.ProcessEnv;
  /** Force the set path; default: NVML when root, else sudo nvidia-smi. */
  privilege?: 'auto' | 'root' | 'sudo';
  /**
   * Slowly changing quantities (1 s average power, temperature, utilisation, used memory, memory clock, enforced
   * limit) are read at most this often and held in between; instant power, SM clock and clock-event reasons are read
   * every tick. Default 1000 ms; 0 reads everything every tick. power_avg_w is null on ticks that did not read it.
   */
  slowEveryMs?: number;
}

interface SlowValues {
  /** performance.now() of the read. */
  at: number;
  memClock: number | null;
  temp: number | null;
  util: { gpu: number; memory: number } | null;
  memUsed: number | null;
  enforced: number | null;
}

type Reader = 'buffer' | 'fields' | 'avgField' | 'powerUsage' | 'smClock' | 'memClock' | 'temp' | 'util' | 'mem' | 'reasons' | 'enforced';

interface Gpu {
  index: number;
  handle: DeviceHandle;
  info: DeviceInfo;
  /** Calls this GPU answered NOT_SUPPORTED to: skipped from then on. */
  unsupported: Set<Reader>;
  lost: string | null;
  slow: SlowValues | null;
  drain: DrainState | null;
}

/** Everything but power, read once per drain and given to the buffered readings nearest in time. */
interface Extras {
  t: number;
  avgMw: number | null;
  smClock: number | null;
  memClock: number | null;
  temp: number | null;
  util: { gpu: number; memory: number } | null;
  memUsed: number | null;
  enforced: number | null;
  reasons: number | null;
}

interface DrainState {
  buf: SampleBuffer;
  /** Driver timestamp (µs) of the newest reading taken. */
  lastSeenUs: number;
  /** Time of the newest reading emitted, s. */
  lastEmitT: number;
  prev: Extras | null;
}

/** Result of polling one GPU's instant power and energy counter for a short while. */
export interface SensorProbe {
  update_period_ms: number | null;
  changes: number;
  polls: number;
  energy_check: SensorFacts['energy_counter_check'];
  energy_note: string | null;
  /** Counter power over the probe vs mean polled instant power, W. */
  counter_w: number | null;
  instant_w: number | null;
}

export class NvmlBackend implements GpuBackend {
  readonly name = 'nvml' as const;
  readonly simulated = false;
  private gpus: Gpu[] = [];
  private listed = false;
  private closed = false;
  private readonly perfAnchor = performance.now();
  private readonly epochAnchor = Date.now() / 1000;
  readonly warnings: string[] = [];

  private constructor(
    readonly lib: NvmlLib,
    readonly driver: string | null,
    private readonly opts: NvmlBackendOptions,
  ) {}

  /**
   * Loads and initialises NVML and gets every GPU's handle. Throws BackendError:
   * 'unavailable' (library missing / driver not loaded), 'no-device' (zero GPUs), 'permission'.
   */
  static async open(opts: NvmlBackendOptions = {}): Promise<NvmlBackend> {
    let lib: NvmlLib;
    try {
      lib = await NvmlLib.load(opts.libPath);
    } catch (e) {
      throw new BackendError(`nvml: ${(e as Error).message}`, 'nvml', 'unavailable');
    }
    try {
      lib.init();
    } catch (e) {
      const code = e instanceof NvmlLoadError ? e.code : null;
      const kind = code === NVML_ERROR_NO_PERMISSION ? 'permission' : code === NVML_ERROR_DRIVER_NOT_LOADED ? 'unavailable' : 'unavailable';
      throw new BackendError(`nvml: ${(e as Error).message}`, 'nvml', kind);
    }
    let driver: string | null;
    try {
      driver = lib.driverVersion();
    } catch {
      driver = null;
    }
    const backend = new NvmlBackend(lib, driver, opts);
    try {
      const count = lib.deviceCount();
      if (count === 0) throw new BackendError('nvml: the driver is loaded but reports no GPU', 'nvml', 'no-device');
      for (let i = 0; i < count; i++) backend.gpus.push(backend.describe(i));
    } catch (e) {
      lib.shutdown();
      if (e instanceof BackendError) throw e;
      const code = e instanceof NvmlCallError ? e.code : null;
      throw new BackendError(`nvml: ${(e as Error).message}`, 'nvml', code === NVML_ERROR_NO_PERMISSION ? 'permission' : 'failed');
    }
    return backend;
  }

  now(): number {
    return this.epochAnchor + (performance.now() - this.perfAnchor) / 1000;
  }

  private warn(message: string): void {
    this.warnings.push(message);
    this.opts.onWarning?.(message);
  }

  private optional<T>(fn: () => T): T | null {
    try {
      return fn();
    } catch {
      return null;
    }
  }

  private describe(index: number): Gpu {
    const lib = this.lib;
    const handle = lib.handle(index);
    const constraints = this.optional(() => lib.limitConstraintsMw(handle));
    const mw = (v: number | null | undefined) => (v === null || v === undefined ? null : v / 1000);
    const info: DeviceInfo = {
      id: `nvml:${index}`,
      index,
      backend: 'nvml',
      kind: 'gpu',
      name: this.optional(() => lib.name(handle)) ?? `NVIDIA GPU ${index}`,
      vendor: 'NVIDIA',
      simulated: false,
      uuid: this.optional(() => lib.uuid(handle)),
      pci_bus_id: this.optional(() => lib.pciBusId(handle)),
      driver: this.driver,
      vbios: this.optional(() => lib.vbios(handle)),
      limit_w: mw(this.optional(() => lib.limitMw(handle))),
      enforced_limit_w: mw(this.optional(() => lib.enforcedLimitMw(handle))),
      min_limit_w: mw(constraints?.[0]),
      max_limit_w: mw(constraints?.[1]),
      default_limit_w: mw(this.optional(() => lib.defaultLimitMw(handle))),
      memory_total_mb: ((b) => (b === null ? null : Math.round(b / 1048576)))(this.optional(() => lib.memoryTotalBytes(handle))),
      sensors: { power_kinds: [], energy_counter: false, energy_counter_check: 'unchecked', update_period_ms: null },
    };
    const gpu: Gpu = { index, handle, info, unsupported: new Set(), lost: null, slow: null, drain: null };
    // Which power sensors answer.
    const kinds: SensorKind[] = [];
    const fields = this.optional(() => lib.fieldValues(handle, [NVML_FI_DEV_POWER_INSTANT, NVML_FI_DEV_POWER_AVERAGE]));
    if (fields?.[0]?.value !== null && fields?.[0]?.value !== undefined) kinds.push('instant');
    if (fields?.[1]?.value !== null && fields?.[1]?.value !== undefined) kinds.push('average');
    if (!kinds.includes('average') && this.optional(() => lib.powerUsageMw(handle)) !== null) kinds.push('average');
    if (!fields) gpu.unsupported.add('fields');
    else if (fields[1]?.value === null) gpu.unsupported.add('avgField');
    const energy = this.optional(() => lib.totalEnergyMj(handle));
    info.sensors = {
      power_kinds: kinds,
      energy_counter: energy !== null,
      energy_counter_check: energy === null ? 'absent' : 'unchecked',
      update_period_ms: null,
      note: this.cadenceNote(kinds, energy !== null),
    };
    return gpu;
  }

  private cadenceNote(kinds: SensorKind[], counter: boolean): string {
    const slow = this.opts.slowEveryMs ?? 1000;
    const power = kinds.includes('instant') ? 'instant power (field 186)' : 'power (nvmlDeviceGetPowerUsage)';
    const held = slow > 0 ? `1 s average, temperature, utilisation, memory and enforced limit every ${slow} ms (held between)` : 'everything else every tick';
    return `${power}, SM clock and clock-event reasons every tick; ${held}${counter ? '; energy counter at window boundaries only (~4 ms CPU per read)' : ''}`;
  }

  private gpu(index: number): Gpu {
    const g = this.gpus.find((x) => x.index === index);
    if (!g) throw new BackendError(`nvml: no GPU with index ${index} (have ${this.gpus.map((x) => x.index).join(', ') || 'none'})`, 'nvml', 'no-device');
    if (g.lost) throw new BackendError(`nvml: GPU ${index} was lost: ${g.lost}`, 'nvml', 'no-device');
    return g;
  }

  async listDevices(): Promise<DeviceInfo[]> {
    if (!this.listed) {
      this.listed = true;
      if (this.opts.checkSensors !== false) {
        const probes = await this.probeSensors(this.opts.sensorCheckMs ?? 1000);
        for (const g of this.gpus) {
          const p = probes.get(g.index);
          if (!p) continue;
          const notes: string[] = [this.cadenceNote(g.info.sensors.power_kinds, g.info.sensors.energy_counter)];
          if (p.counter_w !== null && p.instant_w !== null) notes.push(`start-up check: counter ${p.counter_w.toFixed(1)} W vs instant ${p.instant_w.toFixed(1)} W`);
          if (p.energy_note) notes.push(p.energy_note);
          if (p.update_period_ms === null) notes.push(`instant power did not change in ${p.polls} polls; update period unknown`);
          g.info.sensors = { ...g.info.sensors, update_period_ms: p.update_period_ms, energy_counter_check: p.energy_check, note: notes.join('; ') };
        }
      }
    }
    // Limits can change between calls (another tool, our own set): re-read them.
    for (const g of this.gpus) {
      if (g.lost) continue;
      const limit = this.optional(() => this.lib.limitMw(g.handle));
      const enforced = this.optional(() => this.lib.enforcedLimitMw(g.handle));
      if (limit !== null) g.info.limit_w = limit / 1000;
      if (enforced !== null) g.info.enforced_limit_w = enforced / 1000;
    }
    return this.gpus.filter((g) => !g.lost).map((g) => structuredClone(g.info));
  }

  /** Polls instant power of every GPU for `ms` and checks the energy counter against it. */
  async probeSensors(ms: number): Promise<Map<number, SensorProbe>> {
    const live = this.gpus.filter((g) => !g.lost && g.info.sensors.power_kinds.includes('instant'));
    const state = new Map(
      live.map((g) => [
        g.index,
        { last: null as number | null, lastTs: 0, changes: [] as number[], polls: 0, sum: 0, n: 0, e0: null as number | null, t0: 0, e1: null as number | null, t1: 0 },
      ]),
    );
    for (const g of live) {
      const s = state.get(g.index)!;
      s.t0 = performance.now();
      s.e0 = g.info.sensors.energy_counter ? this.optional(() => this.lib.totalEnergyMj(g.handle)) : null;
    }
    const start = performance.now();
    while (performance.now() - start < ms) {
      for (const g of live) {
        const s = state.get(g.index)!;
        const f = this.optional(() => this.lib.fieldValues(g.handle, [NVML_FI_DEV_POWER_INSTANT]));
        const v = f?.[0]?.value;
        if (v === null || v === undefined) continue;
        s.polls++;
        s.sum += v;
        s.n++;
        const t = performance.now();
        if (s.last !== null && v !== s.last) s.changes.push(t);
        s.last = v;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    for (const g of live) {
      const s = state.get(g.index)!;
      s.t1 = performance.now();
      s.e1 = g.info.sensors.energy_counter ? this.optional(() => this.lib.totalEnergyMj(g.handle)) : null;
    }
    const out = new Map<number, SensorProbe>();
    for (const g of live) {
      const s = state.get(g.index)!;
      const intervals = s.changes.slice(1).map((t, i) => t - s.changes[i]!);
      const period = intervals.length >= 2 ? Math.round(median(intervals) * 10) / 10 : null;
      const instantW = s.n ? s.sum / s.n / 1000 : null;
      let check: SensorFacts['energy_counter_check'] = g.info.sensors.energy_counter ? 'failed' : 'absent';
      let note: string | null = null;
      let counterW: number | null = null;
      if (s.e0 !== null && s.e1 !== null) {
        const dt = (s.t1 - s.t0) / 1000;
        counterW = (s.e1 - s.e0) / 1000 / dt;
        if (s.e1 < s.e0) note = `energy counter went backwards (${s.e0} -> ${s.e1} mJ)`;
        else if (instantW === null) {
          check = 'unchecked';
          note = 'energy counter monotonic; no instant power to compare with';
        } else {
          const diff = Math.abs(counterW - instantW);
          const ok = diff <= Math.max(0.15 * instantW, 15);
          check = ok ? 'ok' : 'failed';
          note = ok ? null : `energy counter gives ${counterW.toFixed(1)} W over ${dt.toFixed(2)} s but instant power averaged ${instantW.toFixed(1)} W`;
        }
      } else if (g.info.sensors.energy_counter) {
        note = 'energy counter could not be read during the start-up check';
      }
      out.set(g.index, { update_period_ms: period, changes: s.changes.length, polls: s.polls, energy_check: check, energy_note: note, counter_w: counterW, instant_w: instantW });
    }
    return out;
  }

  /** One read of `fn` for `gpu`: null when unsupported (and remembered), throws on a lost GPU. */
  private read<T>(g: Gpu, key: Reader, fn: () => T): T | null {
    if (g.unsupported.has(key)) return null;
    try {
      return fn();
    } catch (e) {
      if (e instanceof NvmlCallError) {
        if (e.lost) throw e;
        if (e.code === NVML_ERROR_NOT_SUPPORTED || e.code === NVML_ERROR_FUNCTION_NOT_FOUND || e.code === NVML_ERROR_NO_PERMISSION) {
          g.unsupported.add(key);
          this.warn(`nvml: GPU ${g.index}: ${e.message}; not read from now on`);
        }
      }
      return null;
    }
  }

  async sample(indexes: number[]): Promise<Sample[]> {
    return this.sampleSync(indexes);
  }

  /** The synchronous core of sample(): one pass over the GPUs, no awaits. */
  sampleSync(indexes: number[]): Sample[] {
    const out: Sample[] = [];
    for (const index of indexes) {
      const g = this.gpus.find((x) => x.index === index);
      if (!g || g.lost) continue;
      const h = g.handle;
      const lib = this.lib;
      try {
        const t = this.now();
        const nowMs = performance.now();
        const slowEvery = this.opts.slowEveryMs ?? 1000;
        const slowDue = !g.slow || nowMs - g.slow.at >= slowEvery - 1;
        let instant: number | null = null;
        let avg: number | null = null;
        const f = this.read(g, 'fields', () =>
          slowDue && !g.unsupported.has('avgField') ? lib.fieldValues(h, [NVML_FI_DEV_POWER_INSTANT, NVML_FI_DEV_POWER_AVERAGE]) : lib.fieldValues(h, [NVML_FI_DEV_POWER_INSTANT]),
        );
        if (f) {
          if (f[0]?.ret === 15 || f[1]?.ret === 15) throw new NvmlCallError('nvmlDeviceGetFieldValues', 15, 'GPU is lost');
          instant = f[0]?.value ?? null;
          avg = f[1]?.value ?? null;
        }
        if (avg === null && instant === null) avg = this.read(g, 'powerUsage', () => lib.powerUsageMw(h));
        if (slowDue) {
          g.slow = {
            at: nowMs,
            memClock: this.read(g, 'memClock', () => lib.clockMhz(h, NVML_CLOCK_MEM)),
            temp: this.read(g, 'temp', () => lib.temperatureC(h)),
            util: this.read(g, 'util', () => lib.utilization(h)),
            memUsed: this.read(g, 'mem', () => lib.memoryUsedBytes(h)),
            enforced: this.read(g, 'enforced', () => lib.enforcedLimitMw(h)),
          };
        }
        const slow = g.slow!;
        out.push({
          device_id: g.info.id,
          t,
          power_w: instant !== null ? instant / 1000 : avg !== null ? avg / 1000 : null,
          power_kind: instant !== null ? 'instant' : 'average',
          power_avg_w: avg !== null ? avg / 1000 : null,
          energy_mj: null,
          sm_clock_mhz: this.read(g, 'smClock', () => lib.clockMhz(h, NVML_CLOCK_SM)),
          mem_clock_mhz: slow.memClock,
          temp_c: slow.temp,
          util_gpu: slow.util?.gpu ?? null,
          util_mem: slow.util?.memory ?? null,
          mem_used_mb: slow.memUsed !== null ? Math.round((slow.memUsed / 1048576) * 10) / 10 : null,
          limit_w: slow.enforced !== null ? slow.enforced / 1000 : null,
          throttle_reasons: this.read(g, 'reasons', () => lib.clockEventReasons(h)),
        });
      } catch (e) {
        this.sampleFailed(g, e);
      }
    }
    return out;
  }

  /**
   * Buffered sampling: one nvmlDeviceGetSamples call per GPU returns the power readings the driver took since the
   * last call (~every 20 ms on an H200, each with its own timestamp), thinned to about one per `intervalMs`; the other
   * fields are read once per call and given to the readings nearest in time (this call's or the previous one's).
   * A GPU without the buffer gets one polled reading per call.
   */
  drainSamples(indexes: number[], intervalMs: number): Sample[] {
    const out: Sample[] = [];
    for (const index of indexes) {
      const g = this.gpus.find((x) => x.index === index);
      if (!g || g.lost) continue;
      try {
        if (g.unsupported.has('buffer')) {
          out.push(...this.sampleSync([index]));
          continue;
        }
        const st = (g.drain ??= { buf: new SampleBuffer(), lastSeenUs: (this.now() - intervalMs / 1000) * 1e6, lastEmitT: 0, prev: null });
        const n = this.read(g, 'buffer', () => this.lib.readSampleBuffer(g.handle, NVML_TOTAL_POWER_SAMPLES, st.lastSeenUs, st.buf));
        const ex = this.readExtras(g);
        if (n === null) {
          out.push(...this.sampleSync([index]));
          continue;
        }
        const rows: Sample[] = [];
        const minGap = (intervalMs * 0.9) / 1000;
        for (let i = 0; i < n; i++) {
          const us = st.buf.timestampsUs[i]!;
          if (us <= st.lastSeenUs) continue;
          st.lastSeenUs = us;
          const t = us / 1e6;
          if (t - st.lastEmitT < minGap) continue;
          st.lastEmitT = t;
          const e = st.prev && t < (st.prev.t + ex.t) / 2 ? st.prev : ex;
          rows.push(this.row(g, t, st.buf.values[i]!, e));
        }
        const last = rows[rows.length - 1];
        if (last && ex.avgMw !== null) last.power_avg_w = ex.avgMw / 1000;
        st.prev = ex;
        out.push(...rows);
      } catch (e) {
        this.sampleFailed(g, e);
      }
    }
    return out;
  }

  /** A failed read leaves the GPU out of this batch; a lost GPU (fallen off the bus) is not sampled again. */
  private sampleFailed(g: Gpu, e: unknown): void {
    if (e instanceof NvmlCallError && e.lost) {
      g.lost = e.message;
      this.warn(`nvml: GPU ${g.index} (${g.info.name}, ${g.info.uuid ?? 'no uuid'}) was lost mid-run and is no longer sampled: ${e.message}`);
      return;
    }
    this.warn(`nvml: GPU ${g.index}: sample failed: ${(e as Error).message}`);
  }

  private readExtras(g: Gpu): Extras {
    const h = g.handle;
    const lib = this.lib;
    const f = this.read(g, 'fields', () => lib.fieldValues(h, [NVML_FI_DEV_POWER_AVERAGE]));
    if (f?.[0]?.ret === 15) throw new NvmlCallError('nvmlDeviceGetFieldValues', 15, 'GPU is lost');
    return {
      t: this.now(),
      avgMw: f?.[0]?.value ?? null,
      smClock: this.read(g, 'smClock', () => lib.clockMhz(h, NVML_CLOCK_SM)),
      memClock: this.read(g, 'memClock', () => lib.clockMhz(h, NVML_CLOCK_MEM)),
      temp: this.read(g, 'temp', () => lib.temperatureC(h)),
      util: this.read(g, 'util', () => lib.utilization(h)),
      memUsed: this.read(g, 'mem', () => lib.memoryUsedBytes(h)),
      enforced: this.read(g, 'enforced', () => lib.enforcedLimitMw(h)),
      reasons: this.read(g, 'reasons', () => lib.clockEventReasons(h)),
    };
  }

  private row(g: Gpu, t: number, powerMw: number, e: Extras): Sample {
    return {
      device_id: g.info.id,
      t,
      power_w: powerMw / 1000,
      power_kind: 'instant',
      power_avg_w: null,
      energy_mj: null,
      sm_clock_mhz: e.smClock,
      mem_clock_mhz: e.memClock,
      temp_c: e.temp,
      util_gpu: e.util?.gpu ?? null,
      util_mem: e.util?.memory ?? null,
      mem_used_mb: e.memUsed !== null ? Math.round((e.memUsed / 1048576) * 10) / 10 : null,
      limit_w: e.enforced !== null ? e.enforced / 1000 : null,
      throttle_reasons: e.reasons,
    };
  }

  async readEnergyMj(index: number): Promise<number | null> {
    return this.readEnergyMjSync(index);
  }

  readEnergyMjSync(index: number): number | null {
    const g = this.gpus.find((x) => x.index === index);
    if (!g || g.lost || !g.info.sensors.energy_counter) return null;
    try {
      return this.lib.totalEnergyMj(g.handle);
    } catch (e) {
      if (e instanceof NvmlCallError && e.lost) {
        g.lost = e.message;
        this.warn(`nvml: GPU ${g.index} was lost: ${e.message}`);
      }
      return null;
    }
  }

  async getPowerLimit(index: number): Promise<number> {
    const g = this.gpu(index);
    try {
      return this.lib.limitMw(g.handle) / 1000;
    } catch (e) {
      throw new BackendError(`nvml: GPU ${index}: ${(e as Error).message}`, 'nvml', 'failed');
    }
  }

  /** Enforced limit (what the board actually holds), W. */
  async getEnforcedLimit(index: number): Promise<number | null> {
    const g = this.gpu(index);
    return this.optional(() => this.lib.enforcedLimitMw(g.handle) / 1000);
  }

  async setPowerLimit(index: number, watts: number): Promise<void> {
    await this.setPowerLimitVerified(index, watts);
  }

  /** As a normal user a limit is set through sudo and nvidia-smi (GpuBackend.capArgv). */
  capArgv(index: number, watts: number): string[] {
    return nvidiaSmiCapArgv(index, watts);
  }

  /**
   * Sets and verifies the limit: NVML (mW) when root, else `sudo nvidia-smi -i N -pl W` in a pty.
   * Either way the enforced limit must read back within 1 W.
   */
  async setPowerLimitVerified(index: number, watts: number): Promise<SetCapResult> {
    const g = this.gpu(index);
    const label = `GPU ${index} (${g.info.name})`;
    validateCap(watts, g.info, 'nvml', label);
    const privilege = this.opts.privilege ?? 'auto';
    const readBack = async () => this.getEnforcedLimit(index);
    if (privilege === 'root' || (privilege === 'auto' && isRoot())) {
      try {
        this.lib.setLimitMw(g.handle, watts * 1000);
      } catch (e) {
        const code = e instanceof NvmlCallError ? e.code : null;
        throw new BackendError(`nvml: setting ${watts} W on ${label}: ${(e as Error).message}`, 'nvml', code === NVML_ERROR_NO_PERMISSION ? 'permission' : 'failed');
      }
      let enforced: number | null = null;
      for (let i = 0; i < 4; i++) {
        enforced = await readBack();
        if (enforced !== null && Math.abs(enforced - watts) <= 1) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      if (enforced === null || Math.abs(enforced - watts) > 1) {
        throw new BackendError(`nvml: ${label} enforces ${enforced ?? 'unknown'} W after setting ${watts} W; the cap is not in effect`, 'nvml', 'failed');
      }
      g.info.limit_w = watts;
      g.slow = null;
      return { requested_w: watts, enforced_w: enforced, via: 'direct', argv: ['nvmlDeviceSetPowerManagementLimit', String(index), String(Math.round(watts * 1000))], output: '' };
    }
    const res = await setCap({ backend: 'nvml', argv: this.capArgv(index, watts), index, watts, constraints: g.info, readBack, privilege: 'sudo', onPty: this.opts.onPty, env: this.opts.env, label });
    g.info.limit_w = watts;
    g.slow = null;
    return res;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lib.shutdown();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Registry entry: NVIDIA GPUs through the driver library, tried first by `auto`. */
export const nvmlBackend: BackendModule = {
  id: 'nvml',
  auto: true,
  vendor: 'nvidia',
  open: async (ctx) => ({ backend: await NvmlBackend.open({ env: ctx.env, onWarning: ctx.onWarning, onPty: ctx.onPty, privilege: ctx.privilege, libPath: ctx.nvmlLibPath, checkSensors: ctx.checkSensors }) }),
  chosen: (b, requested) => {
    const n = b as NvmlBackend;
    return `${requested ? 'requested; ' : 'using nvml: '}${n.lib.path} loaded (driver ${n.driver ?? 'unknown'})`;
  },
};
