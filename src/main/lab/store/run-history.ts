// Earlier runs of a workload on one kind of device, for the plan check (what its start-up and ramp took before).
import type { Db } from './db';
import { metricsOfRun } from './samples';
import type { PastRun } from '../../../core/plan-timing';

/** Most earlier runs read per workload and device: the latest ones. */
const MAX_RUNS = 5;

/** How much faster than wall time a recorded sweep's clock ran (its plan's sim.speedup; 1 on real devices). */
function speedupOf(planJson: string, simulated: number): number {
  if (!simulated) return 1;
  try {
    const s = (JSON.parse(planJson) as { sim?: { speedup?: unknown } }).sim?.speedup;
    return typeof s === 'number' && s >= 1 ? s : 1;
  } catch {
    return 1;
  }
}

/**
 * The latest finished runs of `workload` that ran on a GPU named `deviceName` of `host`, with their steps (end
 * time, units/s per GPU, duration). Reads only.
 */
export function pastRunsOf(db: Db, workload: string, deviceName: string, host: string): PastRun[] {
  const rows = db
    .prepare(
      `SELECT r.id, r.started_at, COALESCE(r.gpus, 1) AS gpus, s.plan, s.simulated FROM runs r JOIN sweeps s ON s.id = r.sweep_id
       WHERE r.workload = ? AND r.status = 'done' AND r.started_at IS NOT NULL
         AND EXISTS (SELECT 1 FROM run_devices rd JOIN devices d ON d.id = rd.device_id
                     WHERE rd.run_id = r.id AND d.kind = 'gpu' AND d.name = ? AND d.host = ?)
       ORDER BY r.id DESC LIMIT ?`,
    )
    .all(workload, deviceName, host, MAX_RUNS) as { id: number; started_at: number; gpus: number; plan: string; simulated: number }[];
  return rows.map((r) => {
    const rates = new Map(metricsOfRun(db, r.id, 'rate').map((m) => [m.t, m.value]));
    const steps = metricsOfRun(db, r.id, 'units').flatMap((u) => {
      const rate = rates.get(u.t);
      // rate is per GPU over the step: dt = units / (rate * gpus)
      return rate !== undefined && rate > 0 ? [{ t: u.t, rate, dt: u.value / (rate * r.gpus) }] : [];
    });
    return { started_at: r.started_at, steps, speedup: speedupOf(r.plan, r.simulated) };
  });
}
