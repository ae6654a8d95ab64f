// Every process a sweep starts carries CAPLAB_RUN_TAG=<random> in its environment, and so do its descendants,
// including daemons that double-fork and leave the process tree (fork -> setsid -> fork, re-parented to init).
// At run end, and when a killed sweep's limits are restored, processes carrying the tag are found in /proc and
// ended. (A child subreaper in the CapLab process would collect such orphans too, but Node reaps only the
// children it spawned, so adopted ones would stay zombies; cgroups need a delegation unprivileged users rarely
// have. docs/reliability.md says more.)
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { isAlive } from './process-tree';

export const RUN_TAG_ENV = 'CAPLAB_RUN_TAG';

export function newRunTag(): string {
  return randomBytes(12).toString('hex');
}

/** Live processes (other than this one) whose environment carries the tag. Empty where /proc is absent. */
export function taggedProcesses(tag: string): number[] {
  const needle = Buffer.from(`${RUN_TAG_ENV}=${tag}\0`);
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`);
      if (env.includes(needle) && isAlive(Number(name))) out.push(Number(name));
    } catch {
      // Gone, or another user's process (its environment is not readable, and it is not ours to end).
    }
  }
  return out;
}

/** Ends every tagged process: SIGTERM, then SIGKILL after the grace period for whatever is left. */
export async function killTagged(tag: string, graceMs = 2000): Promise<number[]> {
  const found = taggedProcesses(tag);
  if (found.length === 0) return [];
  for (const pid of found) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && found.some(isAlive)) await new Promise((r) => setTimeout(r, 50));
  // Read again: a daemon may have forked while we waited.
  for (const pid of new Set([...found.filter(isAlive), ...taggedProcesses(tag)])) signal(pid, 'SIGKILL');
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}
