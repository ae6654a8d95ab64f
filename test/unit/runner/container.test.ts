import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cidfilePath, cleanupContainer, containerExists, containerRunName, prepareContainerRun, readCid, removeContainers } from '../../../src/main/lab/runner/container';
import { buildCommand, loadWorkloads } from '../../../src/main/lab/runner/workloads';

/**
 * A stand-in for `docker`: records every call's argv and behaves like run/stop/kill/rm/inspect/ps. Its "container"
 * is a detached process that outlives the `run` client, as a real container outlives `docker run` when the client
 * is killed; the daemon-side --rm removes a container once it stops.
 */
const SHIM = `#!/bin/sh
state="$FAKE_RUNTIME_STATE"
running() { [ -r "/proc/$1/stat" ] && ! grep -q ') Z ' "/proc/$1/stat"; }
{ printf '%s' "$(basename "$0")"; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n'; } >> "$state/calls.log"
cmd=$1; shift
case "$cmd" in
run)
  name=; cidfile=; prev=
  for a in "$@"; do
    case "$prev" in --name) name=$a;; --cidfile) cidfile=$a;; esac
    prev=$a
  done
  if [ -n "$cidfile" ] && [ -e "$cidfile" ]; then echo "docker: Error response from daemon: Container ID file found, make sure the other container isn't running or delete $cidfile." >&2; exit 125; fi
  if [ -e "$state/$name.pid" ]; then echo "docker: Error response from daemon: Conflict. The container name \\"/$name\\" is already in use." >&2; exit 125; fi
  setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300' fake-container "$state/$name.pid" </dev/null >/dev/null 2>&1 &
  while [ ! -s "$state/$name.pid" ]; do sleep 0.02; done
  pid=$(cat "$state/$name.pid")
  if [ -n "$cidfile" ]; then printf 'f00d%s' "$pid" > "$cidfile"; fi
  echo '@caplab {"ev":"start","t":1,"workload":"fake","units":"images"}'
  while running "$pid"; do sleep 0.05; done
  rm -f "$state/$name.pid"
  exit 137
  ;;
stop|kill)
  if [ "$cmd" = stop ]; then shift 2; sig=TERM; else sig=KILL; fi
  target=$1
  if [ "$cmd" = stop ] && [ -n "$FAKE_RUNTIME_FAIL_STOP" ]; then echo "Error response from daemon: cannot stop container: $target: permission denied" >&2; exit 1; fi
  if [ ! -e "$state/$target.pid" ]; then echo "Error response from daemon: No such container: $target" >&2; exit 1; fi
  pid=$(cat "$state/$target.pid")
  kill -$sig "$pid" 2>/dev/null
  i=0; while running "$pid" && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done
  rm -f "$state/$target.pid"
  echo "$target"
  ;;
rm)
  [ "$1" = -f ] && shift
  target=$1
  if [ ! -e "$state/$target.pid" ]; then echo "Error response from daemon: No such container: $target" >&2; exit 1; fi
  pid=$(cat "$state/$target.pid")
  kill -KILL "$pid" 2>/dev/null
  i=0; while running "$pid" && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done
  rm -f "$state/$target.pid"
  echo "$target"
  ;;
inspect)
  for target; do :; done
  if [ -e "$state/$target.pid" ]; then echo "f00d$(cat "$state/$target.pid")"; else echo "Error: No such object: $target" >&2; exit 1; fi
  ;;
ps)
  for f in "$state"/*.pid; do [ -e "$f" ] && basename "$f" .pid; done
  ;;
*) echo "unknown command $cmd" >&2; exit 2 ;;
esac
`;

const root = mkdtempSync(join(tmpdir(), 'caplab-ctr-'));
const shim = join(root, 'docker');
writeFileSync(shim, SHIM);
chmodSync(shim, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

let state: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  state = mkdtempSync(join(root, 'state-'));
  env = { ...process.env, FAKE_RUNTIME_STATE: state };
});
afterEach(() => {
  // Never leave a fake container behind.
  for (const f of readdirSync(state).filter((n) => n.endsWith('.pid'))) {
    try {
      process.kill(Number(readFileSync(join(state, f), 'utf8')), 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

const calls = () =>
  existsSync(join(state, 'calls.log'))
    ? readFileSync(join(state, 'calls.log'), 'utf8').trim().split('\n').map((l) => l.split('\t'))
    : [];
/** Running (a zombie waiting for its reaper counts as ended). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
/** Waits up to 3 s for a process to end. */
async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 60 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}
const containerPid = (name: string) => Number(readFileSync(join(state, `${name}.pid`), 'utf8'));

const def = loadWorkloads({ resourcesDir: resolve(__dirname, '../../../resources'), userDir: null }).require('vit_l_16').def;

/** Starts the run like the sweep runner does (argv array, no shell) and waits for the workload's first line. */
async function startRun(name: string, cidfile: string) {
  const built = buildCommand(def, { batch_size: 32 }, { runtime: 'docker', devices: [0], containerName: name, cidfile, runtimeBinary: shim, env });
  const child = spawn(built.argv[0]!, built.argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await new Promise<void>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('@caplab')) res();
    });
    child.on('exit', () => rej(new Error(`run exited early: ${out}`)));
  });
  return { built, child, exited };
}

describe('container names and cidfiles', () => {
  it('caplab-<sweep>-<run>, safe for every runtime', () => {
    expect(containerRunName(12, 345)).toBe('caplab-12-345');
    expect(containerRunName('My Sweep!', 'r/1')).toBe('caplab-my-sweep-r-1');
    expect(cidfilePath('/runs/12-345', 'caplab-12-345')).toBe('/runs/12-345/caplab-12-345.cid');
    expect(readCid(null)).toBeNull();
    expect(readCid(join(root, 'missing.cid'))).toBeNull();
  });
});

describe('container lifecycle against a runtime shim', () => {
  it('cancel: the killed docker client leaves the container running; cleanup stops and removes it', async () => {
    const name = 'caplab-5-9';
    const cidfile = cidfilePath(state, name);
    const { built, child, exited } = await startRun(name, cidfile);
    const pid = containerPid(name);
    expect(readCid(cidfile)).toBe(`f00d${pid}`);
    expect(await containerExists(built.container!, { binary: shim, env })).toBe(true);

    child.kill('SIGKILL'); // what the process-tree kill does to the pty's child
    await exited;
    expect(alive(pid)).toBe(true); // the container does not die with its client

    const r = await cleanupContainer(built.container!, { binary: shim, env, graceSeconds: 2 });
    expect(r).toMatchObject({ target: name, gone: true, error: null });
    expect(await ended(pid)).toBe(true);
    expect(existsSync(cidfile)).toBe(false);
    expect(calls()).toEqual([
      ['docker', ...built.argv.slice(1)],
      ['docker', 'inspect', '--format', '{{.Id}}', name],
      ['docker', 'stop', '-t', '2', name],
      ['docker', 'rm', '-f', name],
    ]);
    expect(built.argv.slice(0, 8)).toEqual([shim, 'run', '--rm', '--init', '--name', name, '--cidfile', cidfile]);
    // Idempotent: a second cleanup finds nothing and still reports the container gone.
    expect((await cleanupContainer(built.container!, { binary: shim, env })).gone).toBe(true);
  });

  it('a container that ended by itself is cleaned up without errors', async () => {
    const name = 'caplab-5-10';
    const { built, exited } = await startRun(name, cidfilePath(state, name));
    process.kill(containerPid(name), 'SIGKILL');
    expect(await exited).toBe(137);
    const r = await cleanupContainer(built.container!, { binary: shim, env, graceSeconds: 0 });
    expect(r).toMatchObject({ gone: true, error: null });
    expect(calls().slice(1)).toEqual([
      ['docker', 'stop', '-t', '0', name],
      ['docker', 'rm', '-f', name],
    ]);
    expect(r.calls.map((c) => c.code)).toEqual([1, 1]);
  });

  it('a stop the runtime refuses is followed by kill, then rm -f', async () => {
    const name = 'caplab-5-11';
    const { built, child, exited } = await startRun(name, cidfilePath(state, name));
    const pid = containerPid(name);
    child.kill('SIGKILL');
    await exited;
    const r = await cleanupContainer(built.container!, { binary: shim, env: { ...env, FAKE_RUNTIME_FAIL_STOP: '1' }, graceSeconds: 5 });
    expect(r.gone).toBe(true);
    expect(await ended(pid)).toBe(true);
    expect(calls().slice(1)).toEqual([
      ['docker', 'stop', '-t', '5', name],
      ['docker', 'kill', name],
      ['docker', 'rm', '-f', name],
    ]);
  });

  it('before a run, a stale cidfile and a leftover container of the same name are removed', async () => {
    const name = 'caplab-6-1';
    const cidfile = cidfilePath(state, name);
    const first = await startRun(name, cidfile);
    const pid = containerPid(name);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(cidfile)).toBe(true);

    await prepareContainerRun({ runtime: 'docker', name, cidfile }, { binary: shim, env });
    expect(await ended(pid)).toBe(true);
    expect(existsSync(cidfile)).toBe(false);
    expect(calls().slice(1)).toEqual([['docker', 'rm', '-f', name]]);

    // Now a new run with the same name and cidfile starts.
    const again = await startRun(name, cidfile);
    await cleanupContainer(again.built.container!, { binary: shim, env, graceSeconds: 0 });
    await again.exited;
  });

  it('leftovers of one sweep are removed by name prefix; other containers are left alone', async () => {
    const a = await startRun('caplab-8-1', cidfilePath(state, 'caplab-8-1'));
    const b = await startRun('caplab-8-2', cidfilePath(state, 'caplab-8-2'));
    const other = await startRun('caplab-80-1', cidfilePath(state, 'caplab-80-1'));
    const removed = await removeContainers('docker', 'caplab-8-', { binary: shim, env });
    expect(removed.sort()).toEqual(['caplab-8-1', 'caplab-8-2']);
    await Promise.all([a.exited, b.exited]);
    expect(existsSync(join(state, 'caplab-80-1.pid'))).toBe(true);
    await cleanupContainer(other.built.container!, { binary: shim, env, graceSeconds: 0 });
    await other.exited;
    await expect(removeContainers('docker', 'other-', { binary: shim, env })).rejects.toThrow(/refusing to remove containers outside CapLab's names/);
  });

  it('apptainer runs need no container cleanup; a missing runtime is reported, not thrown', async () => {
    expect(await cleanupContainer({ runtime: 'apptainer', name: null, cidfile: null })).toEqual({ target: null, calls: [], gone: true, error: null });
    const r = await cleanupContainer({ runtime: 'podman', name: 'caplab-1-1', cidfile: null }, { binary: join(root, 'no-such-podman'), env });
    expect(r.gone).toBe(false);
    expect(r.error).toMatch(/could not remove container caplab-1-1: ENOENT/);
  });
});
