// Pareto front of throughput vs efficiency (both to maximise), over caps or over workloads/devices.
import type { ParetoPoint, ParetoResult } from '../../shared/analysis';

/** Indices of the non-dominated points when maximising x and y. Equal points are all kept; non-finite points never are. */
export function paretoFrontIndices(points: readonly { x: number; y: number }[]): number[] {
  const front: number[] = [];
  points.forEach((p, i) => {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return;
    const dominated = points.some((q) => Number.isFinite(q.x) && Number.isFinite(q.y) && q.x >= p.x && q.y >= p.y && (q.x > p.x || q.y > p.y));
    if (!dominated) front.push(i);
  });
  return front;
}

export interface ParetoInput {
  label: string;
  cap_w: number;
  throughput: number | null;
  efficiency: number | null;
}

/** Pareto front over points (caps of one sweep, or caps of several sweeps/workloads). Points without data are left out. */
export function paretoFront(inputs: readonly ParetoInput[]): ParetoResult {
  const pts = inputs.filter((p) => p.throughput !== null && p.efficiency !== null && Number.isFinite(p.throughput) && Number.isFinite(p.efficiency));
  const on = new Set(paretoFrontIndices(pts.map((p) => ({ x: p.throughput as number, y: p.efficiency as number }))));
  const points: ParetoPoint[] = pts.map((p, i) => ({ label: p.label, cap_w: p.cap_w, throughput: p.throughput as number, efficiency: p.efficiency as number, on_front: on.has(i) }));
  const front = points.filter((p) => p.on_front).sort((a, b) => a.throughput - b.throughput || b.efficiency - a.efficiency);
  return { points, front };
}
