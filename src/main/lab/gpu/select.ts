/**
 * Backend choice. `auto` tries NVML, then nvidia-smi (on PATH and listing at least one GPU), then amd-smi
 * (or rocm-smi), then the simulated backend, and says which it chose and why, e.g.
 * "nvml: libnvidia-ml.so.1 not found ...; nvidia-smi: not on PATH; amd-smi: not on PATH; rocm-smi: not on PATH;
 * using simulated GPUs". An explicit choice that cannot open throws a BackendError with the reason.
 */
import type { IPty } from 'node-pty';
import type { BackendChoice } from '../../../shared/device';
import { AmdSmiBackend } from './amd-smi';
import { BackendError, type GpuBackend } from './backend';
import { NvidiaSmiBackend } from './nvidia-smi';
import { NvmlBackend } from './nvml';
import { SimBackend, type SimBackendOptions } from './sim';

export interface OpenBackendOptions {
  /** Environment: PATH decides which tools are found. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where simulated GPUs keep their state (needed for 'sim' and for auto's last resort). */
  simStateDir?: string;
  /** Further simulated-backend options (presets, clock, seed). */
  sim?: Partial<SimBackendOptions>;
  /** libnvidia-ml to load (default libnvidia-ml.so.1 from the linker path). */
  nvmlLibPath?: string;
  /** Characterise NVML sensors in listDevices (default true). */
  checkSensors?: boolean;
  /** nvidia-smi stream interval, ms. */
  intervalMs?: number;
  onWarning?: (message: string) => void;
  /** sudo pty when a limit is set as a normal user. */
  onPty?: (p: IPty) => void;
  privilege?: 'auto' | 'root' | 'sudo';
}

export interface OpenedBackend {
  backend: GpuBackend;
  reason: string;
}

function short(e: unknown): string {
  return (e as Error).message.replace(/^(nvml|nvidia-smi|amd-smi|rocm-smi): /, '');
}

function openSim(opts: OpenBackendOptions): GpuBackend {
  const stateDir = opts.sim?.stateDir ?? opts.simStateDir;
  if (!stateDir) throw new BackendError('sim: no state directory given for the simulated GPUs', 'sim', 'unavailable');
  return new SimBackend({ ...opts.sim, stateDir });
}

export async function openBackend(choice: BackendChoice, opts: OpenBackendOptions = {}): Promise<OpenedBackend> {
  const env = opts.env ?? process.env;
  const common = { env, onWarning: opts.onWarning, onPty: opts.onPty, privilege: opts.privilege };
  const tryNvml = () => NvmlBackend.open({ ...common, libPath: opts.nvmlLibPath, checkSensors: opts.checkSensors });
  const tryNvidiaSmi = () => NvidiaSmiBackend.open({ ...common, intervalMs: opts.intervalMs });
  const tryAmd = () => AmdSmiBackend.open(common);

  switch (choice) {
    case 'sim':
      return { backend: openSim(opts), reason: 'simulated GPUs requested' };
    case 'nvml': {
      const b = await tryNvml();
      return { backend: b, reason: `requested; ${b.lib.path} loaded (driver ${b.driver ?? 'unknown'})` };
    }
    case 'nvidia-smi': {
      const b = await tryNvidiaSmi();
      return { backend: b, reason: `requested; using ${b.toolPath}` };
    }
    case 'amd-smi': {
      const b = await tryAmd();
      return { backend: b, reason: `requested; using ${b.toolPath}` };
    }
    case 'auto':
      break;
  }

  const why: string[] = [];
  try {
    const b = await tryNvml();
    return { backend: b, reason: `using nvml: ${b.lib.path} loaded (driver ${b.driver ?? 'unknown'})` };
  } catch (e) {
    why.push(`nvml: ${short(e)}`);
  }
  try {
    const b = await tryNvidiaSmi();
    return { backend: b, reason: `${why.join('; ')}; using nvidia-smi at ${b.toolPath}` };
  } catch (e) {
    why.push(`nvidia-smi: ${short(e)}`);
  }
  try {
    const b = await tryAmd();
    return { backend: b, reason: `${why.join('; ')}; using ${b.tool} at ${b.toolPath}` };
  } catch (e) {
    // Already "amd-smi: ...; rocm-smi: ..."
    why.push((e as Error).message);
  }
  try {
    return { backend: openSim(opts), reason: `${why.join('; ')}; using simulated GPUs` };
  } catch (e) {
    throw new BackendError(`no backend could be opened: ${why.join('; ')}; sim: ${short(e)}`, 'sim', 'unavailable');
  }
}
