// Real daemons for integration tests: munged + slurmctld + one slurmd per virtual node (Debian's slurm-wlm and
// munge), and Prometheus. Each instance lives in its own temp folder with free ports, so tests run in parallel
// with anything else on the host; stop() ends every daemon it started, by the pids in their pid files.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';

const SBIN = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

export function findBinary(name: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), ...SBIN]) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** Names of the missing binaries (empty when everything is there). */
export function missing(names: string[]): string[] {
  return names.filter((n) => !findBinary(n));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, f: () => T | null | undefined | false, timeoutMs: number, describe?: () => string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${describe ? `: ${describe()}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** TERM, then KILL after graceMs; waits until the process is gone. */
async function stopPid(pid: number, graceMs = 10_000): Promise<void> {
  if (!pidAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (pidAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
}

function readPid(file: string): number | null {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

export interface SlurmCluster {
  dir: string;
  conf: string;
  /** Environment for Slurm commands and for CapLab processes that call them. */
  env: NodeJS.ProcessEnv;
  nodes: string[];
  /** Lines from the daemons' logs, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

export const SLURM_BINARIES = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scancel', 'sinfo'];

/** Why a local Slurm cannot start here (missing binaries, not root), or null when it can. */
export function slurmUnavailable(): string | null {
  const absent = missing(SLURM_BINARIES);
  if (absent.length) return `${absent.join(', ')} not installed; .ci/run installs slurm-wlm and munge`;
  if (process.getuid?.() !== 0) return 'slurmctld and slurmd run as root here (no cgroups); run the tests as root';
  return null;
}

/**
 * A Slurm cluster on this host: virtual nodes (one slurmd -N NAME each, own port) in partition `all`, plus
 * partition `first` with the first node alone. Runs as root without cgroups (proctrack/linuxproc, task/none).
 */
export async function startSlurm(dir: string, nodes = ['n1', 'n2']): Promise<SlurmCluster> {
  const started: number[] = [];
  const pidFiles: string[] = [];
  const h = hostname().split('.')[0]!;
  const key = join(dir, 'munge.key');
  writeFileSync(key, randomBytes(1024));
  chmodSync(key, 0o400);
  chmodSync(dir, 0o755);
  const sock = join(dir, 'munge.sock');
  const mungePid = join(dir, 'munged.pid');
  const conf = join(dir, 'slurm.conf');
  const env: NodeJS.ProcessEnv = { ...process.env, SLURM_CONF: conf };
  const logs = () =>
    ['ctld.log', ...nodes.map((n) => `slurmd-${n}.log`), 'munged.log']
      .map((f) => {
        try {
          return `--- ${f}\n${readFileSync(join(dir, f), 'utf8').split('\n').slice(-15).join('\n')}`;
        } catch {
          return '';
        }
      })
      .join('\n');
  const stop = async () => {
    // Jobs first: each task gets SIGTERM and restores its node's limits before the daemons go.
    try {
      execFileSync('scancel', ['--full', '--quiet', '--user', String(process.getuid?.() ?? 0)], { env, stdio: 'ignore', timeout: 10_000 });
      await waitFor('jobs to end', () => execFileSync('squeue', ['-h'], { env, timeout: 10_000 }).toString().trim() === '', 40_000).catch(() => undefined);
    } catch {
      // slurmctld never came up: nothing to cancel.
    }
    for (const f of pidFiles.reverse()) {
      const pid = readPid(f);
      if (pid) await stopPid(pid);
    }
    for (const pid of started) await stopPid(pid);
  };
  try {
    execFileSync(findBinary('munged')!, ['--force', `--socket=${sock}`, `--key-file=${key}`, `--pid-file=${mungePid}`, `--log-file=${join(dir, 'munged.log')}`, `--seed-file=${join(dir, 'munge.seed')}`], { stdio: 'pipe' });
    pidFiles.push(mungePid);
    const ctldPort = await freePort();
    const ports = await Promise.all(nodes.map(() => freePort()));
    mkdirSync(join(dir, 'ctld'), { recursive: true });
    writeFileSync(
      conf,
      [
        'ClusterName=caplabtest',
        `SlurmctldHost=${h}`,
        `SlurmctldPort=${ctldPort}`,
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${sock}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'MpiDefault=none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'ReturnToService=2',
        `SlurmctldPidFile=${join(dir, 'ctld.pid')}`,
        `SlurmdPidFile=${join(dir, 'slurmd-%n.pid')}`,
        `SlurmdSpoolDir=${join(dir, 'spool-%n')}`,
        `SlurmdLogFile=${join(dir, 'slurmd-%n.log')}`,
        `SlurmctldLogFile=${join(dir, 'ctld.log')}`,
        `StateSaveLocation=${join(dir, 'ctld')}`,
        'SlurmUser=root',
        'JobAcctGatherType=jobacct_gather/none',
        'AccountingStorageType=accounting_storage/none',
        'JobCompType=jobcomp/none',
        'MinJobAge=600',
        'KillWait=30',
        'SchedulerParameters=sched_interval=1',
        ...nodes.map((n, i) => `NodeName=${n} NodeHostname=${h} Port=${ports[i]} CPUs=1 RealMemory=1000 State=UNKNOWN`),
        'PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP',
        `PartitionName=first Nodes=${nodes[0]} MaxTime=INFINITE State=UP`,
        '',
      ].join('\n'),
    );
    execFileSync(findBinary('slurmctld')!, ['-f', conf], { env, stdio: 'pipe' });
    pidFiles.push(join(dir, 'ctld.pid'));
    for (const n of nodes) {
      execFileSync(findBinary('slurmd')!, ['-f', conf, '-N', n], { env, stdio: 'pipe' });
      pidFiles.push(join(dir, `slurmd-${n}.pid`));
    }
    await waitFor(
      'the nodes to be idle',
      () => {
        try {
          const out = execFileSync('sinfo', ['-h', '-N', '-p', 'all', '-o', '%N %t'], { env, timeout: 10_000 }).toString();
          return nodes.every((n) => new RegExp(`^${n} idle`, 'm').test(out));
        } catch {
          return false;
        }
      },
      45_000,
      logs,
    );
    return { dir, conf, env, nodes, logs, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export interface Prometheus {
  url: string;
  stop(): Promise<void>;
  /** Instant PromQL query; the API's data.result. */
  query(q: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  logs(): string;
}

/** Prometheus with its own storage folder, scraping `targets` every second. */
export async function startPrometheus(dir: string, targets: string[]): Promise<Prometheus> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: caplab',
      '    scrape_interval: 1s',
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  let log = '';
  const child: ChildProcess = spawn(
    findBinary('prometheus')!,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (d) => (log = (log + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (log = (log + d).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.pid) await stopPid(child.pid);
  };
  const query = async (q: string) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`);
    const body = (await res.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    if (body.status !== 'success') throw new Error(`query ${q} failed: ${JSON.stringify(body)}`);
    return body.data.result;
  };
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > until) {
      await stop();
      throw new Error(`prometheus did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, stop, query, logs: () => log };
}
