import type { WorkloadRef } from '../../../shared/plan';
import type { GpuBackend } from '../gpu/backend';
import type { LabBackend } from '../gpu/lab-backend';
import { SIM_CLOCK_ENV } from '../gpu/sim-clock';
import { selfCommand } from '../self-command';
import { WORKLOAD_IDS, findWorkload } from '../../../core/sim/workloads';
import type { WorkloadCommand } from './orchestrator';

/** Workload ids a backend can run: simulated models on the simulated backend, definitions elsewhere. */
export function knownWorkloads(backend: GpuBackend): Set<string> {
  if (backend.simulated) return new Set(WORKLOAD_IDS);
  return new Set(WORKLOAD_IDS);
}

export function listWorkloadSummaries(): { id: string; title: string; units: string }[] {
  return WORKLOAD_IDS.map((id) => {
    const m = findWorkload(id)!;
    return { id, title: m.label, units: m.units };
  });
}

/**
 * The command line of one run. Simulated GPUs run CapLab's own simulated workload process (a real child process
 * in a pty that prints the line protocol), so the whole pipeline is the same as on real hardware.
 */
export function workloadCommandFor(
  lab: LabBackend,
  ref: WorkloadRef,
  devices: number[],
  run: { sweepId: number; runId: number },
  env: NodeJS.ProcessEnv,
): WorkloadCommand {
  if (!lab.sim) throw new Error(`running workload "${ref.id}" on ${lab.backend.name} needs a workload definition`);
  const params = Object.entries(ref.params).flatMap(([k, v]) => ['--param', `${k}=${String(v)}`]);
  return {
    argv: [
      ...selfCommand(env),
      'sim-workload',
      '--workload', ref.id,
      '--devices', devices.join(','),
      '--state-dir', lab.sim.stateDir,
      '--clock', lab.sim.clock.toString(),
      '--seed', String(run.runId),
      ...params,
    ],
    env: { ...env, [SIM_CLOCK_ENV]: lab.sim.clock.toString() },
  };
}
