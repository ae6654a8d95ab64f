import { readdirSync, readFileSync } from 'node:fs';

/** Parent pid of each live process, read from /proc (Linux). Empty where /proc is absent. */
function parentMap(): Map<number, number> {
  const map = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return map;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may itself contain spaces or parentheses.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(name), Number(rest[1]));
    } catch {
      // The process ended while we were reading.
    }
  }
  return map;
}

/** The pid and all its descendants, children before parents' siblings. */
export function processTree(root: number): number[] {
  const parents = parentMap();
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Ends a process and every descendant: SIGTERM to the whole tree (and its process group), then SIGKILL to
 * whatever is left after the grace period. The tree is read before signalling, since children re-parent on exit.
 */
export async function killTree(root: number, graceMs = 3000): Promise<void> {
  const tree = processTree(root);
  signalAll(tree, 'SIGTERM');
  try {
    process.kill(-root, 'SIGTERM');
  } catch {
    // Not a group leader, or already gone.
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && tree.some(isAlive)) await new Promise((r) => setTimeout(r, 50));
  const left = [...new Set([...tree, ...tree.flatMap((p) => (isAlive(p) ? processTree(p) : []))])].filter(isAlive);
  signalAll(left, 'SIGKILL');
}
