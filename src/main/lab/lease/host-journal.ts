// The host journal: one file per device whose limit a sweep has changed, holding the limit before the sweep and
// who owns the change. Every CapLab process of the host reads it (whatever database it uses), so a limit left by
// a killed sweep is restored by whichever CapLab starts next. It lives on a tmpfs (see leaseDir): power limits do
// not survive a reboot, and neither does it.
import { accessSync, chmodSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { DeviceInfo } from '../../../shared/device';

/**
 * Where leases (non-Linux socket files) and the host journal live: CAPLAB_LEASE_DIR, else /run/caplab (root, or
 * where an admin made it writable), else /dev/shm/caplab (a world-writable, sticky folder every user's CapLab
 * shares), else the temp folder.
 */
export function leaseDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CAPLAB_LEASE_DIR) return env.CAPLAB_LEASE_DIR;
  for (const dir of ['/run/caplab', '/dev/shm/caplab']) {
    try {
      sharedDir(dir);
      return dir;
    } catch {
      // Not creatable or not writable here (no /run rights, no /dev/shm): try the next.
    }
  }
  return join(tmpdir(), 'caplab-leases');
}

/** Creates a folder every user may write to, sticky (each removes only its own files); throws where we cannot write. */
function sharedDir(dir: string): void {
  if (mkdirSync(dir, { recursive: true }) !== undefined) chmodSync(dir, 0o1777);
  accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
}

function journalDir(env: NodeJS.ProcessEnv): string {
  return join(leaseDir(env), 'journal');
}

/**
 * The host-wide identity of a device: UUID, else PCI bus id, else backend and index. A simulated device is also
 * keyed by its state folder, since each folder is a separate set of simulated GPUs.
 */
export function deviceLeaseKey(d: DeviceInfo, backendOpts: Record<string, unknown>): string {
  const id = d.uuid ?? d.pci_bus_id ?? `${d.backend}:${d.index}`;
  if (!d.simulated) return `gpu:${id}`;
  const dir = typeof backendOpts.stateDir === 'string' ? backendOpts.stateDir : '';
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // Not created yet: the path as given.
  }
  return `sim:${real}:${id}`;
}

export const HostJournalEntry = z.object({
  version: z.literal(1),
  lease_key: z.string(),
  /** The database's device key (host/backend:index). */
  device_key: z.string(),
  backend: z.string(),
  backend_opts: z.record(z.string(), z.unknown()),
  idx: z.number().int(),
  device_name: z.string(),
  before_w: z.number(),
  owner: z.object({
    pid: z.number().int(),
    host: z.string(),
    sweep_id: z.number().int().nullable(),
    db: z.string(),
    /** CAPLAB_RUN_TAG given to the sweep's workloads: processes left by a killed owner are found by it. */
    tag: z.string(),
  }),
  journalled_at: z.number(),
});
export type HostJournalEntry = z.infer<typeof HostJournalEntry>;

function fileOf(env: NodeJS.ProcessEnv, leaseKey: string): string {
  return join(journalDir(env), `${createHash('sha256').update(leaseKey).digest('hex').slice(0, 40)}.json`);
}

/** Writes (atomically, then durably renamed) the entry of one device. Throws when it cannot: then nothing is set. */
export function writeHostEntry(env: NodeJS.ProcessEnv, entry: HostJournalEntry): void {
  const dir = journalDir(env);
  sharedDir(dir);
  const file = fileOf(env, entry.lease_key);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(entry) + '\n', { mode: 0o644 });
  renameSync(tmp, file);
}

export function readHostEntry(env: NodeJS.ProcessEnv, leaseKey: string): HostJournalEntry | null {
  return parseEntry(fileOf(env, leaseKey));
}

export function removeHostEntry(env: NodeJS.ProcessEnv, leaseKey: string): void {
  rmSync(fileOf(env, leaseKey), { force: true });
}

/**
 * Entries written by this user or by root. Files another user planted are ignored: restoring them would let
 * anyone on the host choose a limit that this (perhaps privileged) CapLab sets.
 */
function parseEntry(file: string): HostJournalEntry | null {
  try {
    const uid = process.getuid?.();
    const owner = statSync(file).uid;
    if (uid !== undefined && owner !== uid && owner !== 0) return null;
    const parsed = HostJournalEntry.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Every readable entry of the host journal. */
export function listHostEntries(env: NodeJS.ProcessEnv): HostJournalEntry[] {
  let names: string[];
  try {
    names = readdirSync(journalDir(env)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names.map((n) => parseEntry(join(journalDir(env), n))).filter((e): e is HostJournalEntry => e !== null);
}
