import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { SimBackend } from '../../src/main/lab/gpu/sim';

/**
 * One CapLab (its data dir and database `name`) on a test "host" `dir`: the simulated GPUs, the lease namespace
 * and the host journal belong to the host, so several labs of one dir share them, as on a real machine.
 */
export function labEnv(dir: string, name: string, db = join(dir, `${name}.db`)): NodeJS.ProcessEnv {
  return {
    CAPLAB_DATA_DIR: join(dir, name),
    CAPLAB_DB: db,
    CAPLAB_SIM_STATE_DIR: join(dir, 'sim'),
    CAPLAB_LEASE_DIR: join(dir, 'leases'),
    CAPLAB_LEASE_NS: `h${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`,
  };
}

export function simLimit(env: NodeJS.ProcessEnv, index = 0): Promise<number> {
  return new SimBackend({ stateDir: env.CAPLAB_SIM_STATE_DIR! }).getPowerLimit(index);
}

export async function setSimLimit(env: NodeJS.ProcessEnv, watts: number, presets = ['h100-sxm']): Promise<void> {
  await new SimBackend({ stateDir: env.CAPLAB_SIM_STATE_DIR!, presets }).setPowerLimit(0, watts);
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function writePlan(dir: string, name: string, yaml: string): string {
  const file = join(dir, `${name}.yaml`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, yaml);
  return file;
}

/** Live processes whose command line mentions `needle` (a lab's own folder): what a run may have left behind. */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmd.includes(needle) && state.slice(state.lastIndexOf(')') + 2)[0] !== 'Z') out.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return out;
}

/** Pids that own host journal entries of a lab (sweeps that have journalled and not yet restored). */
export function journalOwners(env: NodeJS.ProcessEnv): number[] {
  const dir = join(env.CAPLAB_LEASE_DIR!, 'journal');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    try {
      return [(JSON.parse(readFileSync(join(dir, n), 'utf8')) as { owner: { pid: number } }).owner.pid];
    } catch {
      return [];
    }
  });
}
