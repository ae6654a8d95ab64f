import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkloadRef } from '../../../shared/plan';
import type { GpuBackend } from '../gpu/backend';
import { findBackend } from '../gpu/registry';
import type { GpuVendor } from '../../../shared/workload';
import type { LabBackend } from '../gpu/backend';
import { SIM_CLOCK_ENV } from '../gpu/sim-clock';
import { selfCommand } from '../process/self-command';
import { dataDir } from '../files/paths';
import { buildCommand, loadWorkloads, resolveParams, WorkloadParamError } from '../runner/workloads';
import { cidfilePath, cleanupContainer, containerRunName, prepareContainerRun } from '../runner/container';
import { findWorkload, resolveParams as resolveSimParams, WORKLOAD_IDS } from '../../../core/sim/workloads';
import type { Plan } from '../../../shared/plan';
import type { WorkloadCommand } from './orchestrator';
import type { SoftwareRecord } from '../../../shared/export';
import type { PlanIssue } from '../../../shared/api/plans';
import { probeSoftware, SIMULATED_SOFTWARE, type SoftwareTarget } from '../environment/software';

/** Workload ids a backend can run: simulated models on the simulated backend, definitions elsewhere. */
export function knownWorkloads(backend: GpuBackend, env: NodeJS.ProcessEnv = process.env): Set<string> {
  if (backend.simulated) return new Set(WORKLOAD_IDS);
  return new Set(loadWorkloads({ env }).definitions.map((w) => w.def.id));
}

export function listWorkloadSummaries(env: NodeJS.ProcessEnv = process.env): { id: string; title: string; units: string }[] {
  return loadWorkloads({ env }).definitions.map((w) => ({ id: w.def.id, title: w.def.title, units: w.def.units }));
}

function vendorOf(backend: GpuBackend): GpuVendor {
  return findBackend(backend.name)?.vendor ?? 'none';
}

/** Simulated-workload parameters that inject a fault (for trying failure handling), as sim-workload flags. */
const SIM_FAULTS: Record<string, string> = { fail_after_s: '--fail-after-s', hang_after_s: '--hang-after-s', garbage: '--garbage', daemon: '--daemon' };

function simFaultProblem(key: string, v: unknown): string | null {
  if (key === 'garbage' || key === 'daemon') return typeof v === 'boolean' ? null : 'must be true or false';
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= 86_400 ? null : 'must be a number of seconds between 0 and 86400';
}

/**
 * Every workload's parameters checked against its definition (types, ranges, unknown keys) before anything
 * runs, each problem at its field (`workloads.N.params.KEY`). Simulated GPUs also take the fault-injection
 * parameters and check what the simulation models (batch_size, seq_len).
 */
export function checkWorkloadParams(plan: Plan, backend: GpuBackend, env: NodeJS.ProcessEnv = process.env): PlanIssue[] {
  const catalog = loadWorkloads({ env });
  const problems: PlanIssue[] = [];
  plan.workloads.forEach((ref, i) => {
    const at = (path: string, message: string): PlanIssue => ({ path: path ? `workloads.${i}.${path}` : `workloads.${i}`, message });
    const given = { ...ref.params };
    if (backend.simulated) {
      for (const key of Object.keys(SIM_FAULTS)) {
        if (!(key in given)) continue;
        const problem = simFaultProblem(key, given[key]);
        if (problem) problems.push(at(`params.${key}`, problem));
        delete given[key];
      }
    }
    const def = catalog.definitions.find((w) => w.def.id === ref.id)?.def;
    const before = problems.length;
    if (def) {
      try {
        resolveParams(def, given);
      } catch (e) {
        if (e instanceof WorkloadParamError) problems.push(...e.issues.map((p) => at(p.path, p.message)));
        else throw e;
      }
    }
    // The simulation's own check (what it models) only where the definition found nothing: a bad batch_size is
    // one message, the definition's, not two saying the same.
    const model = backend.simulated && problems.length === before ? findWorkload(ref.id) : undefined;
    if (model) {
      try {
        resolveSimParams(model, Object.fromEntries(Object.entries(given).filter(([, v]) => !Array.isArray(v))) as Record<string, string | number | boolean>);
      } catch (e) {
        problems.push(at('params', (e as Error).message));
      }
    }
  });
  return problems;
}

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

/**
 * What the run record asks of each workload of a plan: a native run's Python, a container run's image (built as
 * its runs will be; a workload whose command cannot be built is left to its runs to report).
 */
export function softwareTargets(lab: LabBackend, plan: Plan, env: NodeJS.ProcessEnv): SoftwareTarget[] {
  const catalog = loadWorkloads({ env });
  return plan.workloads.flatMap((ref): SoftwareTarget[] => {
    try {
      const def = catalog.require(ref.id).def;
      const container = ref.runtime === 'docker' || ref.runtime === 'podman';
      const built = buildCommand(def, ref.params, { runtime: ref.runtime, devices: plan.devices ?? [0], vendor: vendorOf(lab.backend), containerName: container ? 'caplab-probe' : undefined, runDir: join(dataDir(env), 'runs', 'probe'), env });
      const sw = built.software;
      if ('image' in sw) return [{ workload: ref.id, kind: 'image', runtime: sw.runtime, binary: sw.binary, image: sw.image, env }];
      return sw.python ? [{ workload: ref.id, kind: 'python', python: sw.python, env: { ...env, ...built.env } }] : [];
    } catch {
      return [];
    }
  });
}

/** The run record's software: simulated workloads are CapLab's own; real ones are asked (environment/software.ts). */
export function workloadSoftware(lab: LabBackend, plan: Plan, env: NodeJS.ProcessEnv): Promise<SoftwareRecord> {
  return lab.sim ? Promise.resolve(SIMULATED_SOFTWARE) : probeSoftware(softwareTargets(lab, plan, env), env);
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
