/**
 * Minimal NVML bindings through koffi (FFI, no compiler). Only what CapLab reads, plus the one set call.
 *
 * Layouts and constants follow NVIDIA's nvml.h (public header of the NVML API reference):
 * - nvmlFieldValue_t: { uint fieldId; uint scopeId; long long timestamp; long long latencyUsec;
 *   nvmlValueType_t valueType; nvmlReturn_t nvmlReturn; nvmlValue_t value } = 40 bytes, value at offset 32.
 * - NVML_FI_DEV_POWER_AVERAGE = 185 (1 s average, Ampere+ except GA100), NVML_FI_DEV_POWER_INSTANT = 186,
 *   NVML_FI_DEV_ENERGY = 191 (same 4 ms driver path as nvmlDeviceGetTotalEnergyConsumption).
 * - nvmlPciInfo_t (v3): char busIdLegacy[16]; uint domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32].
 * - nvmlMemory_t: unsigned long long total, free, used. nvmlUtilization_t: uint gpu, memory.
 *
 * Every out-parameter is a reusable Buffer passed as `void *` (koffi hands the native call a pointer to the
 * Buffer's bytes), so a sample allocates nothing and costs one native call per quantity.
 */
import type * as KoffiModule from 'koffi';

export const NVML_SUCCESS = 0;
export const NVML_ERROR_UNINITIALIZED = 1;
export const NVML_ERROR_INVALID_ARGUMENT = 2;
export const NVML_ERROR_NOT_SUPPORTED = 3;
export const NVML_ERROR_NO_PERMISSION = 4;
export const NVML_ERROR_NOT_FOUND = 6;
export const NVML_ERROR_DRIVER_NOT_LOADED = 9;
export const NVML_ERROR_LIBRARY_NOT_FOUND = 12;
export const NVML_ERROR_FUNCTION_NOT_FOUND = 13;
export const NVML_ERROR_GPU_IS_LOST = 15;
export const NVML_ERROR_UNKNOWN = 999;

export const NVML_FI_DEV_POWER_AVERAGE = 185;
export const NVML_FI_DEV_POWER_INSTANT = 186;
export const NVML_FI_DEV_ENERGY = 191;

export const NVML_CLOCK_SM = 1;
export const NVML_CLOCK_MEM = 2;
export const NVML_TEMPERATURE_GPU = 0;

const FIELD_VALUE_SIZE = 40;

const ERROR_NAMES: Record<number, string> = {
  1: 'NVML_ERROR_UNINITIALIZED',
  2: 'NVML_ERROR_INVALID_ARGUMENT',
  3: 'NVML_ERROR_NOT_SUPPORTED',
  4: 'NVML_ERROR_NO_PERMISSION',
  5: 'NVML_ERROR_ALREADY_INITIALIZED',
  6: 'NVML_ERROR_NOT_FOUND',
  7: 'NVML_ERROR_INSUFFICIENT_SIZE',
  8: 'NVML_ERROR_INSUFFICIENT_POWER',
  9: 'NVML_ERROR_DRIVER_NOT_LOADED',
  10: 'NVML_ERROR_TIMEOUT',
  11: 'NVML_ERROR_IRQ_ISSUE',
  12: 'NVML_ERROR_LIBRARY_NOT_FOUND',
  13: 'NVML_ERROR_FUNCTION_NOT_FOUND',
  14: 'NVML_ERROR_CORRUPTED_INFOROM',
  15: 'NVML_ERROR_GPU_IS_LOST',
  16: 'NVML_ERROR_RESET_REQUIRED',
  17: 'NVML_ERROR_OPERATING_SYSTEM',
  18: 'NVML_ERROR_LIB_RM_VERSION_MISMATCH',
  19: 'NVML_ERROR_IN_USE',
  20: 'NVML_ERROR_NO_DATA',
  999: 'NVML_ERROR_UNKNOWN',
};

/** A failed NVML call: `code` is the nvmlReturn_t. */
export class NvmlCallError extends Error {
  constructor(
    readonly fn: string,
    readonly code: number,
    text: string,
  ) {
    super(`${fn}: ${text} (${ERROR_NAMES[code] ?? 'code ' + code})`);
    this.name = 'NvmlCallError';
  }
  get lost(): boolean {
    return this.code === NVML_ERROR_GPU_IS_LOST;
  }
}

/** The library could not be loaded or initialised at all. */
export class NvmlLoadError extends Error {
  constructor(
    message: string,
    readonly code: number | null = null,
  ) {
    super(message);
    this.name = 'NvmlLoadError';
  }
}

export type DeviceHandle = bigint;

export interface FieldReading {
  ret: number;
  value: number | null;
  /** NVML's CPU timestamp of the value, microseconds since the epoch. */
  timestampUs: number;
}

// koffi functions are untyped at the boundary; each wrapper below gives them a signature.
type NativeFn = (...args: unknown[]) => number;
type NativeStrFn = (...args: unknown[]) => string;

/** Loaded NVML with typed wrappers. Calls throw NvmlCallError on a non-success return. */
export class NvmlLib {
  private readonly u32a = Buffer.alloc(4);
  private readonly u32b = Buffer.alloc(4);
  private readonly u64 = Buffer.alloc(8);
  private readonly str = Buffer.alloc(128);
  private readonly pci = Buffer.alloc(256);
  private readonly util = Buffer.alloc(8);
  private readonly mem = Buffer.alloc(24);
  private readonly handleBuf = Buffer.alloc(8);
  private fieldBuf = Buffer.alloc(FIELD_VALUE_SIZE * 4);
  private initialised = false;

  private constructor(
    readonly path: string,
    private readonly fns: Record<string, NativeFn | null>,
    private readonly errorString: NativeStrFn | null,
  ) {}

  /**
   * Loads the library: `explicitPath`, else `libnvidia-ml.so.1` through the dynamic linker's search path, then the
   * usual driver folders (containers and VMs often mount the driver outside the linker's cache).
   */
  static async load(explicitPath?: string): Promise<NvmlLib> {
    let koffi: typeof KoffiModule;
    try {
      koffi = await import('koffi');
    } catch (e) {
      throw new NvmlLoadError(`koffi (the FFI module) could not be loaded: ${(e as Error).message}`);
    }
    const candidates = explicitPath ? [explicitPath] : defaultLibraryCandidates();
    let lib: KoffiModule.LibraryHandle | null = null;
    let path = candidates[0]!;
    let firstError = '';
    for (const c of candidates) {
      try {
        lib = koffi.load(c);
        path = c;
        break;
      } catch (e) {
        if (!firstError) firstError = (e as Error).message.replace(/^Failed to load shared library: /, '');
      }
    }
    if (!lib) {
      const tried = candidates.length > 1 ? `; also tried ${candidates.slice(1).join(', ')}` : '';
      throw new NvmlLoadError(`${candidates[0]} not found or not loadable (${firstError})${tried}`);
    }
    const decl = (proto: string): NativeFn | null => {
      try {
        return lib.func(proto) as unknown as NativeFn;
      } catch {
        return null;
      }
    };
    const fns: Record<string, NativeFn | null> = {
      nvmlInit_v2: decl('int nvmlInit_v2()'),
      nvmlShutdown: decl('int nvmlShutdown()'),
      nvmlSystemGetDriverVersion: decl('int nvmlSystemGetDriverVersion(void *version, uint32_t length)'),
      nvmlDeviceGetCount_v2: decl('int nvmlDeviceGetCount_v2(void *count)'),
      nvmlDeviceGetHandleByIndex_v2: decl('int nvmlDeviceGetHandleByIndex_v2(uint32_t index, void *device)'),
      nvmlDeviceGetName: decl('int nvmlDeviceGetName(void *device, void *name, uint32_t length)'),
      nvmlDeviceGetUUID: decl('int nvmlDeviceGetUUID(void *device, void *uuid, uint32_t length)'),
      nvmlDeviceGetPciInfo_v3: decl('int nvmlDeviceGetPciInfo_v3(void *device, void *pci)'),
      nvmlDeviceGetVbiosVersion: decl('int nvmlDeviceGetVbiosVersion(void *device, void *version, uint32_t length)'),
      nvmlDeviceGetPowerManagementLimitConstraints: decl(
        'int nvmlDeviceGetPowerManagementLimitConstraints(void *device, void *minLimit, void *maxLimit)',
      ),
      nvmlDeviceGetPowerManagementDefaultLimit: decl('int nvmlDeviceGetPowerManagementDefaultLimit(void *device, void *limit)'),
      nvmlDeviceGetPowerManagementLimit: decl('int nvmlDeviceGetPowerManagementLimit(void *device, void *limit)'),
      nvmlDeviceGetEnforcedPowerLimit: decl('int nvmlDeviceGetEnforcedPowerLimit(void *device, void *limit)'),
      nvmlDeviceGetPowerUsage: decl('int nvmlDeviceGetPowerUsage(void *device, void *power)'),
      nvmlDeviceGetFieldValues: decl('int nvmlDeviceGetFieldValues(void *device, int valuesCount, void *values)'),
      nvmlDeviceGetTotalEnergyConsumption: decl('int nvmlDeviceGetTotalEnergyConsumption(void *device, void *energy)'),
      nvmlDeviceGetClockInfo: decl('int nvmlDeviceGetClockInfo(void *device, int type, void *clock)'),
      nvmlDeviceGetTemperature: decl('int nvmlDeviceGetTemperature(void *device, int sensorType, void *temp)'),
      nvmlDeviceGetUtilizationRates: decl('int nvmlDeviceGetUtilizationRates(void *device, void *utilization)'),
      nvmlDeviceGetMemoryInfo: decl('int nvmlDeviceGetMemoryInfo(void *device, void *memory)'),
      nvmlDeviceGetCurrentClocksEventReasons: decl('int nvmlDeviceGetCurrentClocksEventReasons(void *device, void *reasons)'),
      nvmlDeviceGetCurrentClocksThrottleReasons: decl('int nvmlDeviceGetCurrentClocksThrottleReasons(void *device, void *reasons)'),
      nvmlDeviceSetPowerManagementLimit: decl('int nvmlDeviceSetPowerManagementLimit(void *device, uint32_t limit)'),
      nvmlDeviceGetSamples: decl(
        'int nvmlDeviceGetSamples(void *device, int type, uint64_t lastSeenTimeStamp, void *sampleValType, void *sampleCount, void *samples)',
      ),
    };
    let errorString: NativeStrFn | null;
    try {
      errorString = lib.func('const char *nvmlErrorString(int result)') as unknown as NativeStrFn;
    } catch {
      errorString = null;
    }
    if (!fns.nvmlInit_v2 || !fns.nvmlDeviceGetCount_v2 || !fns.nvmlDeviceGetHandleByIndex_v2) {
      throw new NvmlLoadError(`${path} loaded but lacks nvmlInit_v2/nvmlDeviceGetCount_v2 (driver too old?)`);
    }
    return new NvmlLib(path, fns, errorString);
  }

  has(fn: string): boolean {
    return !!this.fns[fn];
  }

  errorText(code: number): string {
    try {
      return this.errorString?.(code) ?? ERROR_NAMES[code] ?? `error ${code}`;
    } catch {
      return ERROR_NAMES[code] ?? `error ${code}`;
    }
  }

  private call(fn: string, ...args: unknown[]): void {
    const f = this.fns[fn];
    if (!f) throw new NvmlCallError(fn, NVML_ERROR_FUNCTION_NOT_FOUND, 'function not found in this libnvidia-ml');
    const ret = f(...args);
    if (ret !== NVML_SUCCESS) throw new NvmlCallError(fn, ret, this.errorText(ret));
  }

  init(): void {
    const ret = this.fns.nvmlInit_v2!();
    if (ret !== NVML_SUCCESS) throw new NvmlLoadError(`nvmlInit_v2 failed: ${this.errorText(ret)} (${ERROR_NAMES[ret] ?? ret})`, ret);
    this.initialised = true;
  }

  shutdown(): void {
    if (!this.initialised) return;
    this.initialised = false;
    this.fns.nvmlShutdown?.();
  }

  private cString(buf: Buffer): string {
    const end = buf.indexOf(0);
    return buf.toString('utf8', 0, end < 0 ? buf.length : end);
  }

  driverVersion(): string {
    this.str.fill(0);
    this.call('nvmlSystemGetDriverVersion', this.str, 80);
    return this.cString(this.str);
  }

  deviceCount(): number {
    this.call('nvmlDeviceGetCount_v2', this.u32a);
    return this.u32a.readUInt32LE(0);
  }

  handle(index: number): DeviceHandle {
    this.handleBuf.fill(0);
    this.call('nvmlDeviceGetHandleByIndex_v2', index, this.handleBuf);
    return this.handleBuf.readBigUInt64LE(0);
  }

  name(dev: DeviceHandle): string {
    this.str.fill(0);
    this.call('nvmlDeviceGetName', dev, this.str, 96);
    return this.cString(this.str);
  }

  uuid(dev: DeviceHandle): string {
    this.str.fill(0);
    this.call('nvmlDeviceGetUUID', dev, this.str, 96);
    return this.cString(this.str);
  }

  pciBusId(dev: DeviceHandle): string {
    this.pci.fill(0);
    this.call('nvmlDeviceGetPciInfo_v3', dev, this.pci);
    const full = this.cString(this.pci.subarray(36, 68));
    return full || this.cString(this.pci.subarray(0, 16));
  }

  vbios(dev: DeviceHandle): string {
    this.str.fill(0);
    this.call('nvmlDeviceGetVbiosVersion', dev, this.str, 32);
    return this.cString(this.str);
  }

  /** [min, max] in mW. */
  limitConstraintsMw(dev: DeviceHandle): [number, number] {
    this.call('nvmlDeviceGetPowerManagementLimitConstraints', dev, this.u32a, this.u32b);
    return [this.u32a.readUInt32LE(0), this.u32b.readUInt32LE(0)];
  }

  defaultLimitMw(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetPowerManagementDefaultLimit', dev, this.u32a);
    return this.u32a.readUInt32LE(0);
  }

  /** The limit set through NVML/nvidia-smi (what `-pl` changes), mW. */
  limitMw(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetPowerManagementLimit', dev, this.u32a);
    return this.u32a.readUInt32LE(0);
  }

  /** The limit the board actually enforces (min of all limits, including out-of-band ones), mW. */
  enforcedLimitMw(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetEnforcedPowerLimit', dev, this.u32a);
    return this.u32a.readUInt32LE(0);
  }

  /** nvmlDeviceGetPowerUsage, mW: a 1 s average on Ampere and newer, instantaneous on older GPUs. */
  powerUsageMw(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetPowerUsage', dev, this.u32a);
    return this.u32a.readUInt32LE(0);
  }

  /**
   * nvmlDeviceGetFieldValues for `ids` (scope 0 = GPU only). The call itself can succeed while single fields fail:
   * each reading carries its own return code.
   */
  fieldValues(dev: DeviceHandle, ids: readonly number[]): FieldReading[] {
    const need = ids.length * FIELD_VALUE_SIZE;
    if (this.fieldBuf.length < need) this.fieldBuf = Buffer.alloc(need);
    const buf = this.fieldBuf;
    buf.fill(0, 0, need);
    ids.forEach((id, i) => buf.writeUInt32LE(id, i * FIELD_VALUE_SIZE));
    this.call('nvmlDeviceGetFieldValues', dev, ids.length, buf);
    return ids.map((_, i) => {
      const o = i * FIELD_VALUE_SIZE;
      const ret = buf.readInt32LE(o + 28);
      const timestampUs = Number(buf.readBigInt64LE(o + 8));
      if (ret !== NVML_SUCCESS) return { ret, value: null, timestampUs };
      return { ret, value: decodeFieldValue(buf, o), timestampUs };
    });
  }

  /** Total energy since the driver loaded, mJ. Expensive (~4 ms CPU on an H200): window boundaries only. */
  totalEnergyMj(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetTotalEnergyConsumption', dev, this.u64);
    return Number(this.u64.readBigUInt64LE(0));
  }

  clockMhz(dev: DeviceHandle, type: number): number {
    this.call('nvmlDeviceGetClockInfo', dev, type, this.u32a);
    return this.u32a.readUInt32LE(0);
  }

  temperatureC(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetTemperature', dev, NVML_TEMPERATURE_GPU, this.u32a);
    return this.u32a.readUInt32LE(0);
  }

  utilization(dev: DeviceHandle): { gpu: number; memory: number } {
    this.call('nvmlDeviceGetUtilizationRates', dev, this.util);
    return { gpu: this.util.readUInt32LE(0), memory: this.util.readUInt32LE(4) };
  }

  /** Used device memory, bytes. */
  memoryUsedBytes(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetMemoryInfo', dev, this.mem);
    return Number(this.mem.readBigUInt64LE(16));
  }

  /** Total device memory, bytes (the same nvmlMemory_t: total, free, used). */
  memoryTotalBytes(dev: DeviceHandle): number {
    this.call('nvmlDeviceGetMemoryInfo', dev, this.mem);
    return Number(this.mem.readBigUInt64LE(0));
  }

  /** Clock-event (throttle) reason bit mask; uses the newer name where the library has it. */
  clockEventReasons(dev: DeviceHandle): number {
    const fn = this.has('nvmlDeviceGetCurrentClocksEventReasons')
      ? 'nvmlDeviceGetCurrentClocksEventReasons'
      : 'nvmlDeviceGetCurrentClocksThrottleReasons';
    this.call(fn, dev, this.u64);
    return Number(this.u64.readBigUInt64LE(0));
  }

  /**
   * The driver's power sample buffer read in ONE call into a caller-owned buffer (no size query, no per-reading
   * allocation): the readings newer than `lastSeenUs`, as parallel arrays. Returns 0 where the driver has nothing
   * newer (NVML_ERROR_NOT_FOUND). `into` is reused between calls; it must hold `into.capacity` 16-byte entries.
   */
  readSampleBuffer(dev: DeviceHandle, type: number, lastSeenUs: number, into: SampleBuffer): number {
    into.count.writeUInt32LE(into.capacity, 0);
    try {
      this.call('nvmlDeviceGetSamples', dev, type, BigInt(Math.max(0, Math.floor(lastSeenUs))), into.valueType, into.count, into.raw);
    } catch (e) {
      if (e instanceof NvmlCallError && e.code === NVML_ERROR_NOT_FOUND) return 0;
      throw e;
    }
    const n = Math.min(into.capacity, into.count.readUInt32LE(0));
    const t = into.valueType.readInt32LE(0);
    for (let i = 0; i < n; i++) {
      const o = i * 16;
      into.timestampsUs[i] = into.raw.readUInt32LE(o) + into.raw.readUInt32LE(o + 4) * 2 ** 32; // no BigInt per reading
      into.values[i] = decodeValue(into.raw, o + 8, t);
    }
    return n;
  }

  setLimitMw(dev: DeviceHandle, mw: number): void {
    this.call('nvmlDeviceSetPowerManagementLimit', dev, Math.round(mw));
  }
}

function decodeFieldValue(buf: Buffer, o: number): number {
  return decodeValue(buf, o + 32, buf.readInt32LE(o + 24));
}

/** An nvmlValue_t at `v` of nvmlValueType_t `type`. */
function decodeValue(buf: Buffer, v: number, type: number): number {
  switch (type) {
    case 0:
      return buf.readDoubleLE(v);
    case 1:
      return buf.readUInt32LE(v);
    case 2: // unsigned long: 64-bit on LP64 Linux
    case 3:
      return Number(buf.readBigUInt64LE(v));
    case 4:
      return Number(buf.readBigInt64LE(v));
    case 5:
      return buf.readInt32LE(v);
    case 6:
      return buf.readUInt16LE(v);
    default:
      return buf.readUInt32LE(v);
  }
}

/** Reusable storage for readSampleBuffer: the driver's buffer holds ~120 readings (H200), so 256 is ample. */
export class SampleBuffer {
  readonly raw: Buffer;
  readonly count = Buffer.alloc(4);
  readonly valueType = Buffer.alloc(4);
  readonly timestampsUs: Float64Array;
  readonly values: Float64Array;
  constructor(readonly capacity = 256) {
    this.raw = Buffer.alloc(16 * capacity);
    this.timestampsUs = new Float64Array(capacity);
    this.values = new Float64Array(capacity);
  }
}

export const NVML_TOTAL_POWER_SAMPLES = 0;

export function defaultLibraryName(): string {
  if (process.platform === 'win32') return 'nvml.dll';
  return 'libnvidia-ml.so.1';
}

/** The linker's search first, then driver folders outside it. Never the CUDA toolkit's stub library. */
export function defaultLibraryCandidates(): string[] {
  const name = defaultLibraryName();
  if (process.platform !== 'linux') return [name];
  const dirs = ['/usr/local/nvidia/lib64', '/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib/aarch64-linux-gnu', '/usr/lib/wsl/lib'];
  return [name, ...dirs.map((d) => `${d}/${name}`)];
}
