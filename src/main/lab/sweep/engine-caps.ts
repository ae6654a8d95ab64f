// The engine's hold on GPU limits, shared by sweeps, tuning sessions and restoreCaps: the cap journal and leases
// over its database, limit changes whose sudo prompt shows in the run's terminal.
import type { DeviceInfo } from '../../../shared/device';
import type { BeginOptions, EngineContext } from '../engine-context';
import type { LabBackend } from '../gpu/backend';
import { reopenBackend } from '../gpu/lab-backend';
import { LeaseHeldError } from '../lease/device-lease';
import { newRunTag } from '../runner/tagged-processes';
import { CapOwnership, type CapContext } from './cap-guard';

export function capContextOf(ctx: EngineContext): CapContext {
  return { db: ctx.db, dbPath: ctx.dbPath, host: ctx.host, env: ctx.env, open: (name, o) => reopenBackend(name, o, ctx.env, ctx.running.handlePty) };
}

/**
 * Leases the devices host-wide. A device leased by another live sweep: LeaseHeldError naming it, or with
 * `wait`, a retry every second (onWait hears who is waited for, each time the owner changes).
 */
export async function takeCaps(ctx: EngineContext, lab: LabBackend, devices: DeviceInfo[], opts: BeginOptions): Promise<CapOwnership> {
  let last = '';
  for (;;) {
    try {
      return await CapOwnership.take(capContextOf(ctx), lab.backend, lab.reopenOpts, devices, newRunTag());
    } catch (e) {
      if (!(e instanceof LeaseHeldError) || !opts.wait) throw e;
      if (e.message !== last) opts.onWait?.(e.message);
      last = e.message;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
