import type { BackendName, DeviceInfo, Sample } from '../../../shared/device';

/**
 * One GPU (or CPU-power) backend. Implementations: sim.ts (simulated, clearly labelled), nvml.ts (koffi FFI),
 * nvidia-smi.ts, amd-smi.ts, rapl.ts. Limits are in watts.
 */
export interface GpuBackend {
  readonly name: BackendName;
  readonly simulated: boolean;
  /** Devices with their limits and sensor facts. */
  listDevices(): Promise<DeviceInfo[]>;
  /** One reading of each listed device index, now. A device that fails to read is left out, not thrown. */
  sample(indexes: number[]): Promise<Sample[]>;
  /**
   * Optional: the readings the device buffered since the last call, spaced about `intervalMs` apart, each with the
   * time the driver took it. Backends with a driver sample buffer implement it (NVML); BufferedSampler then wakes
   * once a batch instead of once a sample.
   */
  drainSamples?(indexes: number[], intervalMs: number): Sample[];
  /** Exact energy counter in mJ for window boundaries, or null where the device has none. May be slow (NVML: ~4 ms). */
  readEnergyMj(index: number): Promise<number | null>;
  getPowerLimit(index: number): Promise<number>;
  /** Sets the limit; resolves once the device accepted it. Callers verify with getPowerLimit/enforced limit. */
  setPowerLimit(index: number, watts: number): Promise<void>;
  /** Current time in epoch seconds as this backend's samples count it (simulated time for the simulated backend). */
  now(): number;
  close(): Promise<void>;
}

export class BackendError extends Error {
  constructor(
    message: string,
    readonly backend: BackendName,
    readonly code: 'unavailable' | 'no-device' | 'permission' | 'out-of-range' | 'failed' = 'failed',
  ) {
    super(message);
    this.name = 'BackendError';
  }
}
