// A host-wide, exclusive lease on one device, held by a listening Unix socket. On Linux the socket lives in the
// abstract namespace: it has no file, every process of the host (any user, any database) sees it, a second listen
// on the same name fails with EADDRINUSE, and the kernel frees the name when the owner dies, kill -9 included.
// Elsewhere a socket file in the lease directory does the same, with stale files (owner gone) removed on sight.
// Anyone may connect and is told who holds it: pid, sweep, database.
import { createConnection, createServer, type Server } from 'node:net';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { leaseDir } from './host-journal';

export const LeaseOwner = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** The sweep holding the lease; null while the sweep is being created, or for a restore. */
  sweep_id: z.number().int().nullable(),
  db: z.string(),
  /** What the owner is doing with the device: 'sweep' or 'restore'. */
  purpose: z.enum(['sweep', 'restore']),
  since: z.number(),
  device: z.string(),
});
export type LeaseOwner = z.infer<typeof LeaseOwner>;

/** The device is leased by another live process. `owner` is null when it did not answer in time. */
export class LeaseHeldError extends Error {
  constructor(
    readonly key: string,
    readonly owner: LeaseOwner | null,
  ) {
    super(`${owner?.device ?? key} is in use by ${describeOwner(owner)}`);
    this.name = 'LeaseHeldError';
  }
}

export function describeOwner(owner: LeaseOwner | null): string {
  if (!owner) return 'another CapLab process (it did not say which)';
  const what = owner.purpose === 'restore' ? 'a limit restore' : owner.sweep_id === null ? 'a sweep being set up' : `sweep ${owner.sweep_id}`;
  return `${what} of pid ${owner.pid} (database ${owner.db})`;
}

const ASK_TIMEOUT_MS = 3000;

/** The socket address of a lease key, namespaced by CAPLAB_LEASE_NS (tests keep theirs apart with it). */
function address(key: string, env: NodeJS.ProcessEnv): string {
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 40);
  const ns = (env.CAPLAB_LEASE_NS ?? '').replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40);
  if (process.platform === 'linux') return `\0caplab-lease-${ns}-${hash}`;
  const dir = join(leaseDir(env), 'sockets');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${ns}-${hash}.sock`);
}

type Answer = { state: 'free' } | { state: 'held'; owner: LeaseOwner | null };

/** Asks the holder of a lease who it is; 'free' when nobody listens. */
function ask(addr: string): Promise<Answer> {
  return new Promise((resolve) => {
    let text = '';
    const sock = createConnection(addr);
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ state: 'held', owner: null });
    }, ASK_TIMEOUT_MS);
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (text += d.slice(0, 4096)));
    sock.on('end', () => {
      clearTimeout(timer);
      let owner: LeaseOwner | null = null;
      try {
        owner = LeaseOwner.parse(JSON.parse(text));
      } catch {
        // An owner that answered nonsense still holds the lease.
      }
      resolve({ state: 'held', owner });
    });
    sock.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // ECONNREFUSED / ENOENT: nobody listens (a socket file left by a dead owner, or no file at all).
      resolve(e.code === 'ECONNREFUSED' || e.code === 'ENOENT' ? { state: 'free' } : { state: 'held', owner: null });
    });
  });
}

function listen(server: Server, addr: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A held lease. The owner's details are served to whoever asks; `update` changes them (the sweep id, once known). */
export class DeviceLease {
  private closed = false;
  constructor(
    readonly key: string,
    private readonly server: Server,
    private owner: LeaseOwner,
    private readonly file: string | null,
  ) {}

  get info(): LeaseOwner {
    return this.owner;
  }

  update(patch: Partial<LeaseOwner>): void {
    this.owner = { ...this.owner, ...patch };
  }

  serve(): void {
    this.server.on('connection', (sock) => {
      sock.on('error', () => undefined);
      sock.end(JSON.stringify(this.owner));
    });
  }

  release(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      if (this.file) rmSync(this.file, { force: true });
    });
  }
}

/**
 * Takes the lease on `key` or throws LeaseHeldError naming its live holder. The listening socket does not keep the
 * process alive (unref) and is not inherited by child processes (Node opens sockets close-on-exec).
 */
export async function acquireLease(key: string, owner: LeaseOwner, env: NodeJS.ProcessEnv): Promise<DeviceLease> {
  const addr = address(key, env);
  for (let attempt = 0; attempt < 5; attempt++) {
    const server = createServer();
    try {
      await listen(server, addr);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      const answer = await ask(addr);
      if (answer.state === 'held') throw new LeaseHeldError(key, answer.owner);
      // The holder died between our listen and our question (or left a socket file): try again.
      if (process.platform !== 'linux') rmSync(addr, { force: true });
      continue;
    }
    server.unref();
    const lease = new DeviceLease(key, server, owner, process.platform === 'linux' ? null : addr);
    lease.serve();
    return lease;
  }
  throw new LeaseHeldError(key, null);
}

/** Who holds the lease on `key`, without taking it: null when free. */
export async function probeLease(key: string, env: NodeJS.ProcessEnv): Promise<{ owner: LeaseOwner | null } | null> {
  const answer = await ask(address(key, env));
  return answer.state === 'free' ? null : { owner: answer.owner };
}
