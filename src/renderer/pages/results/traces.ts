import type { RunTraces } from '../../../shared/records';
import { api } from '../../api/client';

const cache = new Map<number, RunTraces>();

/** A finished run's stored traces (decimated by the engine), cached: they never change. */
export async function loadTraces(runId: number, maxPoints = 2000): Promise<RunTraces> {
  const hit = cache.get(runId);
  if (hit) return hit;
  const t = await api.getRunTraces({ run_id: runId, max_points: maxPoints });
  cache.set(runId, t);
  return t;
}
