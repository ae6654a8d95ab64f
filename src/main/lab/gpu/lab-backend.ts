import type { IPty } from 'node-pty';
import type { BackendChoice } from '../../../shared/device';
import type { Plan } from '../../../shared/plan';
import { simStateDir } from '../paths';
import type { GpuBackend } from './backend';
import { SimBackend } from './sim';
import { SimClock } from './sim-clock';
import { simTimeFloor } from './sim-time';
import { findPreset, PRESET_IDS } from '../../../core/sim/presets';
import { PlanError } from '../sweep/plan-file';
import { openBackend } from './select';
import { RaplReader } from './rapl';
import type { DeviceInfo } from '../../../shared/device';

/** Receives the pty of `sudo … -pl W` when a limit is set as a normal user, so someone can type the password. */
export type PtyHandler = (p: IPty) => void;

/** A backend opened for the engine, with what a sweep needs to know about it. */
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

/** How limits are set: CAPLAB_PRIVILEGE=sudo forces the sudo path even as root; default auto (direct as root). */
function privilegeOf(env: NodeJS.ProcessEnv): 'auto' | 'root' | 'sudo' {
  const v = env.CAPLAB_PRIVILEGE;
  if (v === undefined || v === '' || v === 'auto') return 'auto';
  if (v === 'root' || v === 'sudo') return v;
  throw new Error(`CAPLAB_PRIVILEGE must be auto, root or sudo; got "${v}"`);
}

function simLab(env: NodeJS.ProcessEnv, plan: Plan | undefined, reason: string): LabBackend {
  const unknown = (plan?.sim.devices ?? []).map((id, i) => (findPreset(id) ? null : `sim.devices.${i}: unknown simulated GPU preset "${id}" (known: ${PRESET_IDS.join(', ')})`)).filter((x): x is string => x !== null);
  if (unknown.length) throw new PlanError(`invalid plan:\n  ${unknown.join('\n  ')}`, unknown);
  const stateDir = simStateDir(env);
  const clock = SimClock.startingAfter(simTimeFloor(stateDir), plan?.sim.speedup ?? 1);
  const backend = new SimBackend({ stateDir, presets: plan?.sim.devices, clock, seed: plan?.seed });
  return { backend, reason, timeScale: clock.speedup, reopenOpts: { stateDir }, sim: { stateDir, clock } };
}

/** Opens the backend a plan or a flag asks for. A plan's `sim` options apply when the simulated backend is used. */
export async function openLabBackend(choice: BackendChoice, opts: { env: NodeJS.ProcessEnv; plan?: Plan; onPty?: PtyHandler }): Promise<LabBackend> {
  if (choice === 'sim') return simLab(opts.env, opts.plan, 'simulated GPUs requested');
  const chosen = await openBackend(choice, { env: opts.env, simStateDir: simStateDir(opts.env), onPty: opts.onPty, privilege: privilegeOf(opts.env) });
  if (chosen.backend.simulated) {
    await chosen.backend.close();
    return simLab(opts.env, opts.plan, chosen.reason);
  }
  return { backend: chosen.backend, reason: chosen.reason, timeScale: 1, reopenOpts: {}, sim: null };
}

/** Reopens a backend by name for restoring journalled limits. */
export async function reopenBackend(name: string, opts: Record<string, unknown>, env: NodeJS.ProcessEnv, onPty?: PtyHandler): Promise<GpuBackend> {
  if (name === 'sim') return new SimBackend({ stateDir: typeof opts.stateDir === 'string' ? opts.stateDir : simStateDir(env) });
  if (name === 'nvml' || name === 'nvidia-smi' || name === 'amd-smi') return (await openBackend(name, { env, simStateDir: simStateDir(env), onPty, privilege: privilegeOf(env) })).backend;
  throw new Error(`cannot reopen backend "${name}" to restore its limits`);
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
