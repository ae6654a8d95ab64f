import { resolve as resolvePath } from 'node:path';
import type { Db } from '../store/db';
import { deviceKey } from '../store/devices';
import { closeDeviceJournal, closeDeviceJournalIn, journalLimit, markRestored, openJournal } from '../store/journal';
import type { GpuBackend } from '../gpu/backend';
import { acquireLease, LeaseHeldError, type DeviceLease, type LeaseOwner } from '../lease/device-lease';
import { deviceLeaseKey, listHostEntries, readHostEntry, removeHostEntry, writeHostEntry, type HostJournalEntry } from '../lease/host-journal';
import { killTagged } from '../runner/tagged-processes';
import type { DeviceInfo } from '../../../shared/device';
import type { CapRestore } from '../../../shared/records';

/** Opens the backend a journal entry was written with (same name and options, e.g. the simulated state folder). */
export type BackendOpener = (name: string, opts: Record<string, unknown>) => Promise<GpuBackend>;

/** What restores and leases need to know about the calling CapLab. */
export interface CapContext {
  db: Db;
  dbPath: string;
  host: string;
  env: NodeJS.ProcessEnv;
  open: BackendOpener;
}

const LIMIT_TOLERANCE_W = 1;

/** Sets a limit and reads it back; throws when the device does not report the requested value. */
async function setAndVerify(backend: GpuBackend, index: number, watts: number): Promise<number> {
  await backend.setPowerLimit(index, watts);
  const now = await backend.getPowerLimit(index);
  if (Math.abs(now - watts) > LIMIT_TOLERANCE_W) {
    throw new Error(`device ${index}: requested a ${watts} W limit but the device reports ${now} W`);
  }
  return now;
}

function sameFile(a: string, b: string): boolean {
  return a === b || resolvePath(a) === resolvePath(b);
}

/**
 * Closes a database's open journal rows of a device once its limit is back: in this database, or (a sweep of
 * another database on this host) in that one, opened briefly. Failing that, the row stays open and is closed
 * the next time its own database looks (no host entry left means someone restored it).
 */
function closeDbRows(ctx: CapContext, entry: HostJournalEntry, restoredW: number): void {
  if (sameFile(entry.owner.db, ctx.dbPath)) {
    closeDeviceJournal(ctx.db, entry.device_key, restoredW);
    return;
  }
  try {
    closeDeviceJournalIn(entry.owner.db, entry.device_key, restoredW);
  } catch {
    // Gone or unwritable: see above.
  }
}

/** Restores one journalled device to its pre-sweep limit. The caller holds the device's lease. */
async function restoreEntry(ctx: CapContext, entry: HostJournalEntry, backend: GpuBackend): Promise<CapRestore> {
  const result: CapRestore = { device_id: entry.device_key, device_name: entry.device_name, before_w: entry.before_w, was_w: null, restored_w: null, ok: false, error: null };
  try {
    result.was_w = await backend.getPowerLimit(entry.idx);
    result.restored_w = result.was_w === entry.before_w ? result.was_w : await setAndVerify(backend, entry.idx, entry.before_w);
    result.ok = true;
  } catch (e) {
    result.error = (e as Error).message;
    return result;
  }
  // The limit is back: the host entry goes first (it decides whether a restore is due), then the database rows.
  removeHostEntry(ctx.env, entry.lease_key);
  try {
    closeDbRows(ctx, entry, result.restored_w!);
  } catch {
    // The limit is restored; a row left open is closed by the next look (no host entry remains).
  }
  return result;
}

function ownerOf(ctx: CapContext, device: string, purpose: LeaseOwner['purpose']): LeaseOwner {
  return { pid: process.pid, host: ctx.host, sweep_id: null, db: resolvePath(ctx.dbPath), purpose, since: Date.now() / 1000, device };
}

/**
 * Restores the limits of sweeps whose owner is dead: host journal entries whose lease nobody holds (a live sweep's
 * entries are never touched, whatever its database). The restorer takes the lease for the duration, so two
 * restorers never race, and first ends processes the dead sweep left running. Then closes this database's open
 * rows that no host entry backs any more (restored by another CapLab).
 */
export async function restoreDeadOwners(ctx: CapContext): Promise<CapRestore[]> {
  const results: CapRestore[] = [];
  const backends = new Map<string, Promise<GpuBackend>>();
  try {
    for (const entry of listHostEntries(ctx.env)) {
      let lease: DeviceLease;
      try {
        lease = await acquireLease(entry.lease_key, ownerOf(ctx, entry.device_name, 'restore'), ctx.env);
      } catch (e) {
        if (e instanceof LeaseHeldError) continue;
        throw e;
      }
      try {
        // Re-read under the lease: another restorer may have finished it between our listing and our lease.
        const current = readHostEntry(ctx.env, entry.lease_key);
        if (!current) continue;
        await killTagged(current.owner.tag);
        const key = `${current.backend}\u0000${JSON.stringify(current.backend_opts)}`;
        if (!backends.has(key)) backends.set(key, ctx.open(current.backend, current.backend_opts));
        let backend: GpuBackend;
        try {
          backend = await backends.get(key)!;
        } catch (e) {
          results.push({ device_id: current.device_key, device_name: current.device_name, before_w: current.before_w, was_w: null, restored_w: null, ok: false, error: (e as Error).message });
          continue;
        }
        results.push(await restoreEntry(ctx, current, backend));
      } finally {
        await lease.release();
      }
    }
  } finally {
    for (const b of backends.values()) await b.then((x) => x.close()).catch(() => undefined);
  }
  const backed = new Set(listHostEntries(ctx.env).map((e) => e.device_key));
  const orphaned = openJournal(ctx.db).filter((e) => !backed.has(e.device_key));
  if (orphaned.length) markRestored(ctx.db, orphaned.map((e) => e.id), null, null);
  return results;
}

interface Owned {
  device: DeviceInfo;
  lease: DeviceLease;
  entry: HostJournalEntry | null;
}

/**
 * A sweep's ownership of the limits of its devices: a host-wide lease on each (taken before anything is
 * written), the journal of their limits before the first change, serialised set calls, and the restore, which
 * happens once, before any other bookkeeping, and after which no set call gets through.
 */
export class CapOwnership {
  private restoring: Promise<CapRestore[]> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly ctx: CapContext,
    private readonly backend: GpuBackend,
    private readonly backendOpts: Record<string, unknown>,
    private readonly owned: Owned[],
    readonly tag: string,
    /** Limits a dead earlier owner had left changed on these devices, restored before this sweep journals. */
    readonly restoredStale: CapRestore[],
  ) {}

  /**
   * Leases every device or none: throws LeaseHeldError naming the live owner of the first busy one. Limits a
   * dead owner left on them are restored first (the lease is ours now), so the journal records the true value.
   */
  static async take(ctx: CapContext, backend: GpuBackend, backendOpts: Record<string, unknown>, devices: readonly DeviceInfo[], tag: string): Promise<CapOwnership> {
    const owned: Owned[] = [];
    try {
      for (const device of devices) {
        const lease = await acquireLease(deviceLeaseKey(device, backendOpts), ownerOf(ctx, device.name, 'sweep'), ctx.env);
        owned.push({ device, lease, entry: null });
      }
      const stale: CapRestore[] = [];
      for (const o of owned) {
        const entry = readHostEntry(ctx.env, o.lease.key);
        if (!entry) continue;
        await killTagged(entry.owner.tag);
        const restored = await restoreEntry(ctx, { ...entry, idx: o.device.index }, backend);
        if (!restored.ok) throw new Error(`${o.device.name}: a limit left changed by an earlier, killed sweep could not be restored to ${entry.before_w} W: ${restored.error}`);
        stale.push(restored);
      }
      return new CapOwnership(ctx, backend, backendOpts, owned, tag, stale);
    } catch (e) {
      for (const o of owned) await o.lease.release();
      throw e;
    }
  }

  setSweep(sweepId: number): void {
    for (const o of this.owned) o.lease.update({ sweep_id: sweepId });
  }

  /** Journals each device's limit in the host journal and the database, before the first change. */
  async journal(sweepId: number): Promise<void> {
    for (const o of this.owned) {
      const before = await this.backend.getPowerLimit(o.device.index);
      const entry: HostJournalEntry = {
        version: 1,
        lease_key: o.lease.key,
        device_key: deviceKey(this.ctx.host, o.device),
        backend: this.backend.name,
        backend_opts: this.backendOpts,
        idx: o.device.index,
        device_name: o.device.name,
        before_w: before,
        owner: { pid: process.pid, host: this.ctx.host, sweep_id: sweepId, db: resolvePath(this.ctx.dbPath), tag: this.tag },
        journalled_at: Date.now() / 1000,
      };
      writeHostEntry(this.ctx.env, entry);
      o.entry = entry;
      journalLimit(this.ctx.db, { sweep_id: sweepId, device_key: entry.device_key, backend: entry.backend, backend_opts: JSON.stringify(entry.backend_opts), idx: entry.idx, device_name: entry.device_name, before_w: before });
    }
  }

  /** Sets a cap on one device; refused once the restore has begun (a cancel never lets a later cap through). */
  set(index: number, watts: number): Promise<number> {
    const op = this.queue.then(() => {
      if (this.restoring) throw new Error('the sweep is ending: its limits are being restored');
      const o = this.owned.find((x) => x.device.index === index);
      if (!o?.entry) throw new Error(`device ${index}: its limit is not journalled, so it is not set`);
      return setAndVerify(this.backend, index, watts);
    });
    this.queue = op.catch(() => undefined);
    return op;
  }

  /** Restores every journalled device (once; later calls get the same result), after any set call in flight. */
  restore(): Promise<CapRestore[]> {
    if (!this.restoring) {
      this.restoring = this.queue.then(async () => {
        const out: CapRestore[] = [];
        for (const o of this.owned) if (o.entry) out.push(await restoreEntry(this.ctx, o.entry, this.backend));
        return out;
      });
    }
    return this.restoring;
  }

  /** Gives the leases back; a device whose restore failed stays journalled for the next CapLab to retry. */
  async release(): Promise<void> {
    for (const o of this.owned) await o.lease.release();
  }
}
