import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkloadRef } from '../../../shared/plan';
import type { GpuBackend } from '../gpu/backend';
import type { LabBackend } from '../gpu/lab-backend';
import { SIM_CLOCK_ENV } from '../gpu/sim-clock';
import { selfCommand } from '../self-command';
import { dataDir } from '../paths';
import { buildCommand, loadWorkloads } from '../runner/workloads';
import { cidfilePath, cleanupContainer, containerRunName, prepareContainerRun } from '../runner/container';
import { WORKLOAD_IDS } from '../../../core/sim/workloads';
import type { WorkloadCommand } from './orchestrator';

/** Workload ids a backend can run: simulated models on the simulated backend, definitions elsewhere. */
export function knownWorkloads(backend: GpuBackend, env: NodeJS.ProcessEnv = process.env): Set<string> {
  if (backend.simulated) return new Set(WORKLOAD_IDS);
  return new Set(loadWorkloads({ env }).definitions.map((w) => w.def.id));
}

export function listWorkloadSummaries(env: NodeJS.ProcessEnv = process.env): { id: string; title: string; units: string }[] {
  return loadWorkloads({ env }).definitions.map((w) => ({ id: w.def.id, title: w.def.title, units: w.def.units }));
}

function vendorOf(backend: GpuBackend): 'nvidia' | 'amd' | 'none' {
  if (backend.name === 'nvml' || backend.name === 'nvidia-smi') return 'nvidia';
  if (backend.name === 'amd-smi' || backend.name === 'rocm-smi') return 'amd';
  return 'none';
}

/** Simulated-workload parameters that inject a fault (for trying failure handling), as sim-workload flags. */
const SIM_FAULTS: Record<string, string> = { fail_after_s: '--fail-after-s', hang_after_s: '--hang-after-s', garbage: '--garbage' };

/** Simulated GPUs run CapLab's own simulated workload: a real child process in a pty printing the line protocol. */
function simulatedCommand(lab: LabBackend & { sim: NonNullable<LabBackend['sim']> }, ref: WorkloadRef, devices: number[], runId: number, env: NodeJS.ProcessEnv): WorkloadCommand {
  const params = Object.entries(ref.params).flatMap(([k, v]) => {
    const flag = SIM_FAULTS[k];
    if (!flag) return ['--param', `${k}=${String(v)}`];
    if (typeof v === 'boolean') return v ? [flag] : [];
    return [flag, String(v)];
  });
  return {
    argv: [
      ...selfCommand(env),
      'sim-workload',
      '--workload', ref.id,
      '--devices', devices.join(','),
      '--state-dir', lab.sim.stateDir,
      '--clock', lab.sim.clock.toString(),
      '--seed', String(runId),
      ...params,
    ],
    env: { ...env, [SIM_CLOCK_ENV]: lab.sim.clock.toString() },
  };
}

/** The command line of one run: a workload definition built for the run's devices, natively or in a container. */
export async function workloadCommandFor(
  lab: LabBackend,
  ref: WorkloadRef,
  devices: number[],
  run: { sweepId: number; runId: number },
  env: NodeJS.ProcessEnv,
): Promise<WorkloadCommand> {
  if (lab.sim) return simulatedCommand({ ...lab, sim: lab.sim }, ref, devices, run.runId, env);
  const def = loadWorkloads({ env }).require(ref.id).def;
  const runDir = join(dataDir(env), 'runs', `${run.sweepId}-${run.runId}`);
  mkdirSync(runDir, { recursive: true });
  const container = ref.runtime === 'docker' || ref.runtime === 'podman';
  const name = container ? containerRunName(run.sweepId, run.runId) : undefined;
  const built = buildCommand(def, ref.params, {
    runtime: ref.runtime,
    devices,
    vendor: vendorOf(lab.backend),
    containerName: name,
    cidfile: name ? cidfilePath(runDir, name) : undefined,
    runDir,
    env,
  });
  const ref2 = built.container;
  if (ref2) await prepareContainerRun(ref2, { env });
  return {
    argv: built.argv,
    env: { ...env, ...built.env },
    cleanup: ref2 ? async () => void (await cleanupContainer(ref2, { env })) : undefined,
    reader: built.reader.adapter === 'protocol' ? undefined : { ...built.reader, logFile: join(runDir, 'output.log') },
  };
}
