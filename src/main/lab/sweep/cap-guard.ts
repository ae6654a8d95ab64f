import type { Db } from '../store/db';
import { deviceKey } from '../store/devices';
import { journalLimit, markRestored, openJournal, type JournalEntry } from '../store/journal';
import type { GpuBackend } from '../gpu/backend';
import type { DeviceInfo } from '../../../shared/device';
import type { CapRestore } from '../../../shared/records';

/** Opens the backend a journal entry was written with (same name and options, e.g. the simulated state folder). */
export type BackendOpener = (name: string, opts: Record<string, unknown>) => Promise<GpuBackend>;

const LIMIT_TOLERANCE_W = 1;

/**
 * Journals the current limit of each device, committed before the first change, so that a crash or kill -9
 * at any later point still leaves the value to restore.
 */
export async function journalLimits(
  db: Db,
  host: string,
  sweepId: number,
  backend: GpuBackend,
  devices: readonly DeviceInfo[],
  backendOpts: Record<string, unknown>,
): Promise<void> {
  for (const d of devices) {
    const before = await backend.getPowerLimit(d.index);
    journalLimit(db, {
      sweep_id: sweepId,
      device_key: deviceKey(host, d),
      backend: backend.name,
      backend_opts: JSON.stringify(backendOpts),
      idx: d.index,
      device_name: d.name,
      before_w: before,
    });
  }
}

/** Sets a limit and reads it back; throws when the device does not report the requested value. */
export async function setAndVerify(backend: GpuBackend, index: number, watts: number): Promise<number> {
  await backend.setPowerLimit(index, watts);
  const now = await backend.getPowerLimit(index);
  if (Math.abs(now - watts) > LIMIT_TOLERANCE_W) {
    throw new Error(`device ${index}: requested a ${watts} W limit but the device reports ${now} W`);
  }
  return now;
}

/**
 * Restores every unrestored journal entry of this host to the limit journalled first for its device (the value
 * before any CapLab change; never "max" or "default"). Entries that fail stay open for the next attempt.
 */
export async function restoreJournal(db: Db, host: string, open: BackendOpener): Promise<CapRestore[]> {
  const byDevice = new Map<string, JournalEntry[]>();
  for (const e of openJournal(db)) {
    if (!e.device_key.startsWith(`${host}/`)) continue;
    byDevice.set(e.device_key, [...(byDevice.get(e.device_key) ?? []), e]);
  }
  const backends = new Map<string, Promise<GpuBackend>>();
  const results: CapRestore[] = [];
  try {
    for (const entries of byDevice.values()) {
      const first = entries[0]!;
      const ids = entries.map((e) => e.id);
      const result: CapRestore = { device_id: first.device_key, device_name: first.device_name, before_w: first.before_w, was_w: null, restored_w: null, ok: false, error: null };
      try {
        const key = `${first.backend}\u0000${first.backend_opts}`;
        if (!backends.has(key)) backends.set(key, open(first.backend, JSON.parse(first.backend_opts) as Record<string, unknown>));
        const backend = await backends.get(key)!;
        result.was_w = await backend.getPowerLimit(first.idx);
        result.restored_w = result.was_w === first.before_w ? result.was_w : await setAndVerify(backend, first.idx, first.before_w);
        result.ok = true;
        markRestored(db, ids, result.restored_w, null);
      } catch (e) {
        result.error = (e as Error).message;
        markRestored(db, ids, null, result.error);
      }
      results.push(result);
    }
  } finally {
    for (const b of backends.values()) await b.then((x) => x.close()).catch(() => undefined);
  }
  return results;
}
