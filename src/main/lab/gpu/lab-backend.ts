import type { IPty } from 'node-pty';
import type { BackendChoice } from '../../../shared/device';
import type { Plan } from '../../../shared/plan';
import { simStateDir } from '../files/paths';
import type { GpuBackend, LabBackend, OpenContext } from './backend';
import { openBackend } from './select';
import { findBackend } from './registry';
import { RaplReader } from './rapl';
import type { DeviceInfo } from '../../../shared/device';

/** Receives the pty of `sudo … -pl W` when a limit is set as a normal user, so someone can type the password. */
export type PtyHandler = (p: IPty) => void;

/** How limits are set: CAPLAB_PRIVILEGE=sudo forces the sudo path even as root; default auto (direct as root). */
export function privilegeOf(env: NodeJS.ProcessEnv): 'auto' | 'root' | 'sudo' {
  const v = env.CAPLAB_PRIVILEGE;
  if (v === undefined || v === '' || v === 'auto') return 'auto';
  if (v === 'root' || v === 'sudo') return v;
  throw new Error(`CAPLAB_PRIVILEGE must be auto, root or sudo; got "${v}"`);
}

/** What the engine opens every backend with: the environment, the simulated GPUs' folder, how limits are set. */
export function labOpenContext(env: NodeJS.ProcessEnv, more: Partial<OpenContext> = {}): OpenContext {
  return { env, simStateDir: simStateDir(env), ...more, privilege: more.privilege ?? privilegeOf(env) };
}

/** Opens the backend a plan or a flag asks for. A plan's `sim` options apply when the simulated backend is used. */
export function openLabBackend(choice: BackendChoice, opts: { env: NodeJS.ProcessEnv; plan?: Plan; onPty?: PtyHandler; lookOnly?: boolean }): Promise<LabBackend> {
  return openBackend(choice, labOpenContext(opts.env, { plan: opts.plan, onPty: opts.onPty, lookOnly: opts.lookOnly }));
}

/** Reopens a backend by name for restoring journalled limits. */
export async function reopenBackend(name: string, opts: Record<string, unknown>, env: NodeJS.ProcessEnv, onPty?: PtyHandler): Promise<GpuBackend> {
  const b = findBackend(name);
  if (!b) throw new Error(`cannot reopen backend "${name}" to restore its limits`);
  return (await b.open(labOpenContext(env, { reopen: opts, onPty }))).backend;
}

/** CPU packages (RAPL) for device listings, with why there are none. */
export async function listCpuPackages(env: NodeJS.ProcessEnv): Promise<{ devices: DeviceInfo[]; reason: string | null }> {
  const rapl = new RaplReader({ root: env.CAPLAB_RAPL_ROOT });
  try {
    return { devices: await rapl.listDevices(), reason: rapl.status().reason };
  } finally {
    await rapl.close();
  }
}

/**
 * CPU package power (RAPL) to record beside real GPUs; null where RAPL is absent or unreadable, and for simulated
 * GPUs, whose samples run on simulated time. CAPLAB_RAPL_ROOT points at another powercap tree (tests).
 */
export async function openCpuPower(lab: LabBackend, env: NodeJS.ProcessEnv): Promise<{ backend: GpuBackend; devices: DeviceInfo[] } | null> {
  if (lab.sim) return null;
  const rapl = new RaplReader({ root: env.CAPLAB_RAPL_ROOT });
  const devices = await rapl.listDevices();
  if (devices.length === 0) {
    await rapl.close();
    return null;
  }
  return { backend: rapl, devices };
}
