import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeBinary } from './workloads';

/**
 * Container lifecycle for workload runs. A docker/podman run is started (by buildCommand) with a known name
 * (`caplab-<sweep>-<run>`) and a --cidfile. Killing the `docker run` client does not stop the container, so on
 * cancel, timeout, failure and normal end the runner calls `cleanupContainer`: stop (grace period), kill if the
 * stop failed, then `rm -f`, and the cidfile is deleted. Apptainer runs are plain child processes: the process-tree
 * kill ends them and there is nothing to clean up here.
 */

export type ContainerRuntimeName = 'docker' | 'podman' | 'apptainer';

export interface ContainerRef {
  runtime: ContainerRuntimeName;
  /** The container's name (docker/podman). */
  name: string | null;
  cidfile: string | null;
}

export interface ContainerOpsOptions {
  /** The runtime's executable; default CAPLAB_DOCKER / CAPLAB_PODMAN / CAPLAB_APPTAINER or its name. */
  binary?: string;
  env?: NodeJS.ProcessEnv;
  /** Seconds `stop` waits before the runtime kills the container (default 10; 0 kills at once). */
  graceSeconds?: number;
  /** Limit for each runtime command, ms (default 30 s + grace). */
  commandTimeoutMs?: number;
}

export interface RuntimeCall {
  argv: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CleanupResult {
  /** What was addressed: the name, or the id from the cidfile when there is no name. */
  target: string | null;
  calls: RuntimeCall[];
  /** True when the container is known to be gone (removed, or never existed). */
  gone: boolean;
  error: string | null;
}

/** `caplab-<sweep>-<run>`: lower-case, only characters container runtimes accept in names. */
export function containerRunName(sweep: number | string, run: number | string): string {
  const part = (x: number | string) => String(x).toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
  return `caplab-${part(sweep)}-${part(run)}`;
}

/** Where a run's cidfile goes. */
export function cidfilePath(dir: string, name: string): string {
  return join(dir, `${name}.cid`);
}

/** The container id written by --cidfile, or null while/if there is none. */
export function readCid(cidfile: string | null): string | null {
  if (!cidfile) return null;
  try {
    const id = readFileSync(cidfile, 'utf8').trim();
    return /^[0-9a-zA-Z]+$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

function call(bin: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RuntimeCall> {
  return new Promise((resolve) => {
    execFile(bin, args, { env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string }) | null;
      let code: number | null = 0;
      if (e) code = typeof e.code === 'number' ? e.code : null;
      resolve({ argv: [bin, ...args], code, stdout: String(stdout), stderr: e && typeof e.code === 'string' ? `${e.code}: ${e.message}` : String(stderr) });
    });
  });
}

const NO_SUCH = /no such container|no container with name or id|does not exist/i;
const ok = (c: RuntimeCall) => c.code === 0;
const missing = (c: RuntimeCall) => NO_SUCH.test(c.stderr);

function setup(ref: ContainerRef, opts: ContainerOpsOptions) {
  const env = opts.env ?? process.env;
  const bin = opts.binary ?? runtimeBinary(ref.runtime, env);
  const grace = Math.max(0, Math.round(opts.graceSeconds ?? 10));
  const timeout = opts.commandTimeoutMs ?? 30_000 + grace * 1000;
  return { env, bin, grace, timeout };
}

/**
 * Before a run: a cidfile left by an earlier run makes `docker run` refuse to start, and a leftover container
 * with the same name too; both are removed (the container with `rm -f`).
 */
export async function prepareContainerRun(ref: ContainerRef, opts: ContainerOpsOptions = {}): Promise<RuntimeCall[]> {
  if (ref.runtime === 'apptainer') return [];
  const { env, bin, timeout } = setup(ref, opts);
  const calls: RuntimeCall[] = [];
  if (ref.name) calls.push(await call(bin, ['rm', '-f', ref.name], env, timeout));
  if (ref.cidfile && existsSync(ref.cidfile)) rmSync(ref.cidfile, { force: true });
  return calls;
}

/**
 * Stops and removes a run's container: `stop -t GRACE`, `kill` when the stop failed, then `rm -f`; deletes the
 * cidfile. Safe to call twice and after the container ended by itself. Never throws.
 */
export async function cleanupContainer(ref: ContainerRef, opts: ContainerOpsOptions = {}): Promise<CleanupResult> {
  if (ref.runtime === 'apptainer') return { target: null, calls: [], gone: true, error: null };
  const { env, bin, grace, timeout } = setup(ref, opts);
  const target = ref.name ?? readCid(ref.cidfile);
  const calls: RuntimeCall[] = [];
  if (!target) {
    if (ref.cidfile) rmSync(ref.cidfile, { force: true });
    return { target: null, calls, gone: true, error: null };
  }
  try {
    const stop = await call(bin, ['stop', '-t', String(grace), target], env, timeout);
    calls.push(stop);
    if (!ok(stop) && !missing(stop)) calls.push(await call(bin, ['kill', target], env, timeout));
    const rm = await call(bin, ['rm', '-f', target], env, timeout);
    calls.push(rm);
    const gone = ok(rm) || missing(rm);
    if (ref.cidfile) rmSync(ref.cidfile, { force: true });
    return { target, calls, gone, error: gone ? null : `could not remove container ${target}: ${rm.stderr.trim() || `exit ${rm.code}`}` };
  } catch (e) {
    return { target, calls, gone: false, error: (e as Error).message };
  }
}

/** Whether the runtime still knows the container (running or stopped). */
export async function containerExists(ref: ContainerRef, opts: ContainerOpsOptions = {}): Promise<boolean> {
  if (ref.runtime === 'apptainer') return false;
  const { env, bin, timeout } = setup(ref, opts);
  const target = ref.name ?? readCid(ref.cidfile);
  if (!target) return false;
  const r = await call(bin, ['inspect', '--format', '{{.Id}}', target], env, timeout);
  return ok(r);
}

/**
 * Containers whose names start with `prefix` (e.g. `caplab-12-` for one sweep), for cleanup after a crash.
 * Returns [] when the runtime is not installed.
 */
export async function listContainers(runtime: 'docker' | 'podman', prefix: string, opts: ContainerOpsOptions = {}): Promise<string[]> {
  const { env, bin, timeout } = setup({ runtime, name: null, cidfile: null }, opts);
  const r = await call(bin, ['ps', '-a', '--filter', `name=^${prefix}`, '--format', '{{.Names}}'], env, timeout);
  if (!ok(r)) return [];
  return r.stdout
    .split('\n')
    .map((s) => s.trim().replace(/^\//, ''))
    .filter((s) => s.startsWith(prefix));
}

/** Removes (rm -f) every container whose name starts with `prefix`; returns the names removed. */
export async function removeContainers(runtime: 'docker' | 'podman', prefix: string, opts: ContainerOpsOptions = {}): Promise<string[]> {
  if (!/^caplab-/.test(prefix)) throw new Error(`refusing to remove containers outside CapLab's names (prefix "${prefix}")`);
  const names = await listContainers(runtime, prefix, opts);
  const removed: string[] = [];
  for (const name of names) {
    const r = await cleanupContainer({ runtime, name, cidfile: null }, { ...opts, graceSeconds: 0 });
    if (r.gone) removed.push(name);
  }
  return removed;
}
