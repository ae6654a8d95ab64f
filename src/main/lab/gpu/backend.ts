import type { IPty } from 'node-pty';
import type { BackendName, DeviceInfo, Sample } from '../../../shared/device';
import type { Plan } from '../../../shared/plan';
import type { GpuVendor } from '../../../shared/workload';
import type { SimClock } from './sim-clock';

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
  /**
   * Optional: the counter together with the time (on now()'s clock) its value belongs to. A backend whose reading
   * has an exact time of its own (the simulated one: the instant it integrated to) implements it, so the caller
   * need not guess the time from the clock around the call; a sped-up clock moves far in a short stall.
   */
  readEnergyAt?(index: number): Promise<{ t: number; energy_mj: number | null }>;
  getPowerLimit(index: number): Promise<number>;
  /**
   * Optional: a backend opened look-only (a plan check) may change the host from now on, because the sweep it was
   * checked for runs on it (the simulated GPUs take the plan's presets). Backends that only read until a limit is
   * set ignore lookOnly and need no such step.
   */
  allowChanges?(): void;
  /**
   * Optional: the vendor tool's argv that sets `watts` on device `index`, run through sudo by a normal user (so
   * `caplab doctor` can ask sudo whether it would run it). Absent where no tool sets limits (simulated, RAPL).
   */
  capArgv?(index: number, watts: number): string[];
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

/** What opening a backend is given: the environment (PATH, data folders), the plan being run, how to set limits. */
export interface OpenContext {
  env: NodeJS.ProcessEnv;
  /** Where simulated GPUs keep their state. */
  simStateDir?: string;
  /** The plan a sweep runs (its `sim` presets, speed-up and seed apply on simulated GPUs). */
  plan?: Plan;
  /**
   * Opened to look at devices only (a plan check): the backend must change nothing on the host, not even the
   * simulated GPUs a plan's presets would set up. Real backends only read in listDevices anyway.
   */
  lookOnly?: boolean;
  /** Options recorded when it was opened for a sweep (`reopenOpts`): set when reopening it to restore limits. */
  reopen?: Record<string, unknown>;
  /** sudo pty when a limit is set as a normal user. */
  onPty?: (p: IPty) => void;
  privilege?: 'auto' | 'root' | 'sudo';
  onWarning?: (message: string) => void;
  /** libnvidia-ml to load (default libnvidia-ml.so.1 from the linker path). */
  nvmlLibPath?: string;
  /** Characterise NVML sensors in listDevices (default true). */
  checkSensors?: boolean;
  /** Tool poll or stream interval, ms. */
  intervalMs?: number;
  /** Time limit of each vendor-tool call that reads (caplab doctor: its probe limit, so a hung tool is ended). */
  toolTimeoutMs?: number;
}

/** A backend as opened, with what a sweep needs to know about it beyond the backend itself. */
export interface OpenedGpus {
  backend: GpuBackend;
  /** Backend seconds per wall second (the simulated speed-up; default 1). */
  timeScale?: number;
  /** Options that reopen the same backend later (cap-journal restore after a crash). */
  reopenOpts?: Record<string, unknown>;
  /** Simulated GPUs: where their state lives and their clock, handed to simulated workloads. */
  sim?: { stateDir: string; clock: SimClock };
}

/** A backend as the engine holds it: opened, with why it was chosen and the defaults filled in. */
export interface LabBackend {
  backend: GpuBackend;
  /** Which backend was chosen and why (auto tries NVML, nvidia-smi, amd-smi, then simulated GPUs). */
  reason: string;
  /** Backend seconds per wall second: the simulated speed-up, 1 for real devices. */
  timeScale: number;
  /** Options that reopen the same backend later (cap-journal restore after a crash). */
  reopenOpts: Record<string, unknown>;
  /** Set for the simulated backend: where its state lives and its clock, handed to simulated workloads. */
  sim: { stateDir: string; clock: SimClock } | null;
}

/**
 * One backend's registry entry (src/main/lab/gpu/registry.ts lists them). Each backend module exports one; the
 * CLI's `--backend`, `auto`, device listings, limit restores and workload environments all go through it.
 */
export interface BackendModule {
  id: BackendName;
  /** Tried by `auto`, in registry order; the first that opens wins. */
  auto: boolean;
  /** Whose GPUs: picks CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES and container images for workloads. */
  vendor: GpuVendor;
  /** Opens it; throws (a BackendError, with the reason) when it cannot. */
  open(ctx: OpenContext): Promise<OpenedGpus>;
  /** Why it was chosen, for `reason`: `requested` when named explicitly, else found by `auto`. */
  chosen(backend: GpuBackend, requested: boolean): string;
}
