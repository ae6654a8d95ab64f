/**
 * `caplab doctor`: what this machine offers CapLab, one check per thing it needs, each with a status and a reason
 * a user can act on. Every probe only looks: backends are opened look-only through the registry (the same opens
 * `--backend auto` tries), sudo is asked with `-n -l` (runs nothing), tools are run for `--version` or a listing,
 * folders are statted. All probes run at once, each within a time limit, so a hung tool costs its limit, not more.
 */
import { constants } from 'node:fs';
import { access, stat, statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { backendList } from '../../../shared/backends';
import type { BackendChoice, BackendName, DeviceInfo } from '../../../shared/device';
import type { DoctorCheck, DoctorReport, DoctorStatus } from '../../../shared/doctor';
import { BackendError, type BackendModule, type OpenContext } from '../gpu/backend';
import { sudoListArgv, sudoListVerdict } from '../gpu/cap-setter';
import { labOpenContext, privilegeOf } from '../gpu/lab-backend';
import { RaplReader } from '../gpu/rapl';
import { backendRegistry } from '../gpu/registry';
import { failureReason } from '../gpu/select';
import { findOnPath, isRoot, runTool, tail, type ExecResult } from '../gpu/tool-exec';
import { findBrowser, NoBrowserError } from '../exporters/chromium';
import { collectEnvironment } from '../environment/environment';
import { dataDir } from '../files/paths';

/** Each probe's time limit: a tool that has not answered by then is reported as not answering. */
export const PROBE_TIMEOUT_MS = 5000;

/** What a probe found: its check less the id, title and time, which the runner adds. */
export type Finding = { status: DoctorStatus; detail: string; path?: string | null; devices?: number | null };

export interface Probe {
  id: string;
  title: string;
  run: () => Promise<Finding>;
  /** Its time limit (default the run's timeout); a probe that waits for another gets more. */
  limitMs?: number;
}

/** Runs every probe at once. One that throws or runs past its limit is a warning saying so, never a failure. */
export function runProbes(probes: Probe[], timeoutMs: number, t0 = performance.now()): Promise<DoctorCheck[]> {
  return Promise.all(
    probes.map(async (p): Promise<DoctorCheck> => {
      const limit = p.limitMs ?? timeoutMs;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Finding>((done) => {
        timer = setTimeout(() => done({ status: 'warning', detail: `did not answer within ${seconds(limit)}` }), limit);
      });
      const found = await Promise.race([p.run().catch((e: unknown): Finding => ({ status: 'warning', detail: `the check failed: ${(e as Error).message ?? String(e)}` })), late]);
      clearTimeout(timer);
      return { id: p.id, title: p.title, status: found.status, detail: found.detail, elapsed_ms: Math.round(performance.now() - t0), path: found.path ?? null, devices: found.devices ?? null };
    }),
  );
}

const seconds = (ms: number) => `${+(ms / 1000).toFixed(1)} s`;

/** A backend as its look-only open went: what its check says, and what the choice, limits and counter checks need. */
export interface Opening {
  id: BackendName;
  auto: boolean;
  opened: boolean;
  finding: Finding;
  devices: DeviceInfo[];
  simulated: boolean;
  /** Opened: why auto would take it (module.chosen), and the words for an explicit choice; else why it did not open. */
  reason: string;
  requested: string;
  /** The tool argv that would set device 0's current limit (null: none, e.g. simulated GPUs). */
  capArgv: string[] | null;
}

/** "2 GPUs: NVIDIA H200 ×2 (driver 580.159.04)". */
export function describeDevices(devices: DeviceInfo[]): string {
  const counts = new Map<string, number>();
  for (const d of devices) counts.set(d.name, (counts.get(d.name) ?? 0) + 1);
  const names = [...counts].map(([n, c]) => (c > 1 ? `${n} ×${c}` : n)).join(', ');
  const drivers = [...new Set(devices.map((d) => d.driver).filter((d): d is string => !!d && d !== 'caplab-sim'))];
  const kind = devices.every((d) => d.kind === 'cpu') ? 'CPU package' : 'GPU';
  return `${devices.length} ${kind}${devices.length === 1 ? '' : 's'}: ${names}${drivers.length ? ` (driver ${drivers.join(', ')})` : ''}`;
}

/** A backend that would not open: unavailable where it is absent, a warning where it is there but failing. */
export function failedOpening(m: Pick<BackendModule, 'id' | 'auto'>, e: unknown): Opening {
  const reason = failureReason(m.id, e);
  const code = e instanceof BackendError ? e.code : 'failed';
  const status: DoctorStatus = code === 'unavailable' || code === 'no-device' ? 'unavailable' : 'warning';
  return { id: m.id, auto: m.auto, opened: false, finding: { status, detail: reason, devices: 0 }, devices: [], simulated: false, reason, requested: reason, capArgv: null };
}

/** Opens one backend look-only, lists its devices and closes it, within `timeoutMs`. */
export async function openOne(m: BackendModule, ctx: OpenContext, timeoutMs: number): Promise<Opening> {
  const attempt = (async (): Promise<Opening> => {
    const { backend } = await m.open(ctx);
    try {
      const devices = await backend.listDevices();
      const first = devices[0];
      const capArgv = first && backend.capArgv ? backend.capArgv(first.index, first.limit_w ?? first.default_limit_w ?? first.max_limit_w ?? 0) : null;
      let finding: Finding = devices.length ? { status: 'ok', detail: describeDevices(devices), devices: devices.length } : { status: 'unavailable', detail: `${m.id}: lists no device`, devices: 0 };
      // RAPL opens whatever the machine has and says in its status why packages are missing or unreadable.
      if (backend instanceof RaplReader) finding = raplFinding(devices, backend.status());
      return { id: m.id, auto: m.auto, opened: devices.length > 0, finding, devices, simulated: backend.simulated, reason: m.chosen(backend, false), requested: m.chosen(backend, true), capArgv };
    } finally {
      await backend.close();
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Opening>((done) => {
    timer = setTimeout(() => done(failedOpening(m, new Error(`did not answer within ${seconds(timeoutMs)}`))), timeoutMs);
  });
  try {
    return await Promise.race([attempt.catch((e: unknown) => failedOpening(m, e)), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** RAPL: readable packages, or why not (no powercap tree: unavailable; counters there but unreadable: a warning). */
export function raplFinding(devices: DeviceInfo[], status: ReturnType<RaplReader['status']>): Finding {
  const unreadable = status.zones.some((z) => !z.readable);
  if (devices.length === 0) return { status: unreadable ? 'warning' : 'unavailable', detail: `${status.reason ?? 'no RAPL package'}${unreadable ? ' (docs/gpu-permissions.md, "CPU power")' : ''}`, path: status.root, devices: 0 };
  return { status: unreadable ? 'warning' : 'ok', detail: `${describeDevices(devices)} readable at ${status.root}${status.reason ? `; ${status.reason}` : ''}`, path: status.root, devices: devices.length };
}

/** The backend `--backend CHOICE` gives here: auto's first `auto` backend in registry order that opened. */
export function chooseBackend(choice: BackendChoice, openings: Opening[]): { opening: Opening | null; reason: string } {
  if (choice !== 'auto') {
    const o = openings.find((x) => x.id === choice) ?? null;
    return o?.opened ? { opening: o, reason: o.requested } : { opening: null, reason: o?.reason ?? `no backend "${choice}"` };
  }
  const why: string[] = [];
  for (const o of openings.filter((x) => x.auto)) {
    if (o.opened) return { opening: o, reason: [...why, o.reason].join('; ') };
    why.push(o.reason);
  }
  return { opening: null, reason: `no backend could be opened: ${why.join('; ')}` };
}

export function choiceFinding(choice: BackendChoice, chosen: { opening: Opening | null; reason: string }): Finding {
  const o = chosen.opening;
  if (!o) return { status: choice === 'auto' ? 'warning' : 'unavailable', detail: chosen.reason };
  return { status: 'ok', detail: `${choice === 'auto' ? 'auto chooses' : 'using'} ${o.id}${o.simulated ? ' (simulated GPUs: no real GPU backend is in use)' : ''}: ${chosen.reason}`, devices: o.devices.length };
}

/** Whether the chosen backend's GPUs have an energy counter (exact window energy) or energy comes from power readings. */
export function energyCounterFinding(o: Opening | null): Finding {
  if (!o) return { status: 'unavailable', detail: 'no GPU backend opened (see backend.choice), so there is no energy counter to read' };
  const gpus = o.devices.filter((d) => d.kind === 'gpu');
  const failed = gpus.filter((d) => d.sensors.energy_counter && d.sensors.energy_counter_check === 'failed');
  const without = gpus.filter((d) => !d.sensors.energy_counter);
  const fromPower = (ds: DeviceInfo[]) => `energy is integrated from ${[...new Set(ds.flatMap((d) => d.sensors.power_kinds))].join('/') || 'no'} power readings`;
  if (without.length === gpus.length) return { status: 'unavailable', detail: `no GPU of ${o.id} reports an energy counter: ${fromPower(gpus)} (less exact; NVML has the counter where the driver library loads)`, devices: gpus.length };
  if (failed.length) return { status: 'warning', detail: `${failed.map((d) => `GPU ${d.index}`).join(', ')} of ${o.id}: the energy counter failed CapLab's start-up check (${failed[0]!.sensors.note ?? 'implausible against instant power'}); ${fromPower(failed)}`, devices: gpus.length };
  if (without.length) return { status: 'warning', detail: `${without.map((d) => `GPU ${d.index}`).join(', ')} of ${o.id} ${without.length === 1 ? 'reports' : 'report'} no energy counter: ${fromPower(without)}`, devices: gpus.length };
  const checks = [...new Set(gpus.map((d) => d.sensors.energy_counter_check))].join('/');
  return { status: 'ok', detail: `${gpus.length === 1 ? `the GPU of ${o.id} reports` : `all ${gpus.length} GPUs of ${o.id} report`} an energy counter (start-up check: ${checks}${o.simulated ? '; simulated' : ''})`, devices: gpus.length };
}

export interface LimitsInput {
  /** The chosen backend; null where none opened. */
  opening: Pick<Opening, 'id' | 'simulated' | 'capArgv'> | null;
  /** CAPLAB_PRIVILEGE as read, or why it could not be. */
  privilege: 'auto' | 'root' | 'sudo' | { error: string };
  root: boolean;
  sudoPath: string | null;
  /** Runs `sudo -n -l -- ARGV`. */
  sudoList: (argv: string[]) => Promise<ExecResult>;
}

/** Whether this process may set power limits, as setCap would set them, without setting any. */
export async function powerLimitFinding(i: LimitsInput): Promise<Finding> {
  if (typeof i.privilege === 'object') return { status: 'warning', detail: i.privilege.error };
  const o = i.opening;
  if (!o) return { status: 'unavailable', detail: 'no GPU backend opened (see backend.choice), so there is no limit to set' };
  if (o.simulated) return { status: 'ok', detail: `simulated GPUs: their limits need no privilege (real GPUs: root, or the sudoers rule of docs/gpu-permissions.md)` };
  if (i.privilege === 'root' || (i.privilege === 'auto' && i.root)) return { status: 'ok', detail: `running as root${i.privilege === 'root' ? ' (CAPLAB_PRIVILEGE=root)' : ''}: ${o.id} sets limits directly` };
  if (!o.capArgv) return { status: 'unavailable', detail: `not root, and ${o.id} has no command sudo could run: run as root to set limits` };
  if (!i.sudoPath) return { status: 'unavailable', detail: 'not root, and sudo is not on PATH: run as root to set limits, or install sudo with the rule of docs/gpu-permissions.md' };
  const shown = `\`${o.capArgv.join(' ')}\``;
  const r = await i.sudoList(o.capArgv);
  const output = `${r.stdout}\n${r.stderr}`;
  if (r.code === null) return { status: 'warning', detail: `\`${sudoListArgv(o.capArgv).join(' ')}\` did not answer: ${r.error ?? 'no exit code'}`, path: i.sudoPath };
  switch (sudoListVerdict(r.code, output)) {
    case 'allowed':
      return { status: 'ok', detail: `sudo runs ${shown} without a password (the sudoers rule of docs/gpu-permissions.md)`, path: i.sudoPath };
    case 'password':
      return { status: 'warning', detail: `sudo asks a password for ${shown}: a sweep on a terminal prompts for it, an unattended one (Slurm, no terminal) cannot set limits; add the sudoers rule of docs/gpu-permissions.md`, path: i.sudoPath };
    default:
      return { status: 'unavailable', detail: `sudo does not let this user run ${shown}${tail(output) ? ` (${tail(output)})` : ''}: add the sudoers rule of docs/gpu-permissions.md, or run as root`, path: i.sudoPath };
  }
}

/** The Slurm client commands: which are on PATH and whether `sinfo` gets an answer from the controller. */
export const SLURM_TOOLS = ['sinfo', 'srun', 'sbatch', 'squeue', 'scancel'] as const;

export async function slurmFinding(paths: Record<(typeof SLURM_TOOLS)[number], string | null>, sinfo: () => Promise<ExecResult>): Promise<Finding> {
  const missing = SLURM_TOOLS.filter((t) => !paths[t]);
  if (missing.length === SLURM_TOOLS.length) return { status: 'unavailable', detail: `${SLURM_TOOLS.join(', ')} are not on PATH: \`caplab cluster\` needs a Slurm login node` };
  const lacks = missing.length ? `; not on PATH: ${missing.join(', ')}` : '';
  if (!paths.sinfo) return { status: 'warning', detail: `sinfo is not on PATH, so the controller cannot be asked${lacks}`, path: paths.sbatch };
  const r = await sinfo();
  if (r.code === null) return { status: 'warning', detail: `sinfo did not answer (${r.error ?? 'no exit code'}): is the Slurm controller up?${lacks}`, path: paths.sinfo };
  if (r.code !== 0) return { status: 'warning', detail: `sinfo is on PATH but gets no answer: ${tail(`${r.stdout}\n${r.stderr}`, 1) || `exit code ${r.code}`}${lacks}`, path: paths.sinfo };
  const partitions = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  return { status: missing.length ? 'warning' : 'ok', detail: `sinfo answers: ${partitions.length} partition${partitions.length === 1 ? '' : 's'}${partitions.length ? ` (${partitions.join(', ')})` : ''}${lacks}`, path: paths.sinfo };
}

/** The browser `caplab report` would print PDFs with (findBrowser), and whether it starts (`--version`). */
export async function chromiumFinding(find: () => Promise<string>, version: (path: string) => Promise<ExecResult>): Promise<Finding> {
  let path: string;
  try {
    path = await find();
  } catch (e) {
    const message = (e as Error).message;
    return e instanceof NoBrowserError ? { status: 'unavailable', detail: `${message}; until then reports are written as HTML` } : { status: 'warning', detail: message };
  }
  const r = await version(path);
  const said = r.stdout.trim().split('\n')[0] ?? '';
  if (r.code !== 0 || !said) return { status: 'warning', detail: `${path} is there but \`${path} --version\` failed (${r.error ?? (tail(r.stderr) || `exit code ${r.code}`)}): PDF reports may fail`, path };
  return { status: 'ok', detail: `${said} at ${path}: \`caplab report\` prints PDFs with it`, path };
}

/** A folder as the database needs it: the nearest folder that exists, whether it is writable, its free space. */
export interface FolderState {
  path: string;
  exists: boolean;
  /** The folder itself, or its nearest existing parent (where it would be created). */
  nearest: string;
  /** Why it cannot be written; null when it can. */
  unwritable: string | null;
  free_bytes: number | null;
}

export async function folderState(path: string): Promise<FolderState> {
  let nearest = resolve(path);
  for (;;) {
    const s = await stat(nearest).catch(() => null);
    if (s?.isDirectory()) break;
    const up = dirname(nearest);
    if (up === nearest) break;
    nearest = up;
  }
  const unwritable = await access(nearest, constants.W_OK).then(
    () => null,
    (e: NodeJS.ErrnoException) => e.code ?? e.message,
  );
  const free = await statfs(nearest).then(
    (s) => s.bavail * s.bsize,
    () => null,
  );
  return { path: resolve(path), exists: nearest === resolve(path), nearest, unwritable, free_bytes: free };
}

/** Under this much free space the disk is full for CapLab (SQLite cannot grow its files). */
export const FULL_BYTES = 1024 * 1024;
/** Under this much a long sweep or a large import may fill the disk. */
export const LOW_BYTES = 1024 ** 3;

export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** The database file and the data folder: writable, and how much room is left (a full disk is a known failure). */
export function dataDirFinding(db: { path: string; exists: boolean; bytes: number | null; unwritable: string | null }, folders: FolderState[]): Finding {
  const problems: Finding[] = [];
  const seen = new Set<string>();
  const parts = [`database ${db.path} (${db.exists ? (db.bytes === null ? 'exists' : bytes(db.bytes)) : 'not created yet'})`];
  if (db.exists && db.unwritable) problems.push({ status: 'unavailable', detail: `cannot write the database ${db.path} (${db.unwritable}): only read-only commands work; name another with --db FILE` });
  for (const f of folders) {
    if (seen.has(f.path)) continue;
    seen.add(f.path);
    const where = f.exists ? f.path : `${f.path} (to be created in ${f.nearest})`;
    parts.push(`${where}: ${f.unwritable ? `not writable (${f.unwritable})` : 'writable'}${f.free_bytes === null ? '' : `, ${bytes(f.free_bytes)} free`}`);
    if (f.unwritable) problems.push({ status: 'unavailable', detail: `cannot write ${f.nearest} (${f.unwritable}): set CAPLAB_DATA_DIR or --db FILE to a folder you can write` });
    else if (f.free_bytes !== null && f.free_bytes < FULL_BYTES) problems.push({ status: 'unavailable', detail: `the disk holding ${f.path} is full (${bytes(f.free_bytes)} free): free some space; sweeps and imports fail until then` });
    else if (f.free_bytes !== null && f.free_bytes < LOW_BYTES) problems.push({ status: 'warning', detail: `only ${bytes(f.free_bytes)} free under ${f.path}: a long sweep or a large import may fill it` });
  }
  const worst = problems.find((p) => p.status === 'unavailable') ?? problems[0];
  return worst ? { ...worst, detail: `${worst.detail} — ${parts.join('; ')}`, path: db.path } : { status: 'ok', detail: parts.join('; '), path: db.path };
}

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  /** The database the lab uses (--db, CAPLAB_DB or the default). */
  dbFile: string;
  choice?: BackendChoice;
  timeoutMs?: number;
}

const titleOf = (id: string) => backendList.find((b) => b.id === id)?.label ?? id;

/** Every check, at once; changes nothing on the machine. */
export async function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  const t0 = performance.now();
  const env = opts.env;
  const choice = opts.choice ?? 'auto';
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  let privilege: LimitsInput['privilege'];
  try {
    privilege = privilegeOf(env);
  } catch (e) {
    privilege = { error: (e as Error).message };
  }
  const ctx = labOpenContext(env, { lookOnly: true, toolTimeoutMs: timeoutMs, privilege: typeof privilege === 'object' ? 'auto' : privilege });
  const openings = backendRegistry.map((m) => openOne(m, ctx, timeoutMs));
  const chosen = Promise.all(openings).then((all) => chooseBackend(choice, all));
  const tool = (argv: string[]) => runTool(argv, { env, timeoutMs });
  const probes: Probe[] = [
    ...backendRegistry.map((m, i): Probe => ({ id: `backend.${m.id}`, title: titleOf(m.id), run: async () => (await openings[i]!).finding })),
    { id: 'backend.choice', title: `The backend --backend ${choice} gives`, run: async () => choiceFinding(choice, await chosen) },
    {
      id: 'power-limits',
      title: 'Permission to set power limits',
      limitMs: 2 * timeoutMs,
      run: async () => powerLimitFinding({ opening: (await chosen).opening, privilege, root: isRoot(), sudoPath: findOnPath('sudo', env), sudoList: (argv) => tool(sudoListArgv(argv)) }),
    },
    { id: 'energy-counter', title: 'GPU energy counter', run: async () => energyCounterFinding((await chosen).opening) },
    {
      id: 'slurm',
      title: 'Slurm (caplab cluster)',
      run: () => slurmFinding(Object.fromEntries(SLURM_TOOLS.map((t) => [t, findOnPath(t, env)])) as Record<(typeof SLURM_TOOLS)[number], string | null>, () => tool(['sinfo', '-h', '-o', '%P'])),
    },
    { id: 'chromium', title: 'Chromium for PDF reports', run: () => chromiumFinding(() => findBrowser(undefined, env), (path) => tool([path, '--version'])) },
    {
      id: 'data-dir',
      title: 'Database and data folder',
      run: async () => {
        const file = resolve(opts.dbFile);
        const s = await stat(file).catch(() => null);
        const unwritable = s ? await access(file, constants.W_OK).then(() => null, (e: NodeJS.ErrnoException) => e.code ?? e.message) : null;
        const folders = await Promise.all([dirname(file), dataDir(env)].map(folderState));
        return dataDirFinding({ path: file, exists: !!s, bytes: s?.size ?? null, unwritable }, folders);
      },
    },
  ];
  const checks = await runProbes(probes, timeoutMs, t0);
  const picked = await chosen;
  const count = (s: DoctorStatus) => checks.filter((c) => c.status === s).length;
  return {
    schema: 'caplab.doctor/1',
    environment: collectEnvironment(),
    backend: { choice, chosen: picked.opening?.id ?? null, reason: picked.reason },
    wall_ms: Math.round(performance.now() - t0),
    timeout_ms: timeoutMs,
    summary: { ok: count('ok'), unavailable: count('unavailable'), warning: count('warning') },
    checks,
  };
}
