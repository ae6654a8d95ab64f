import { FacilityInputError } from './profile';

/** One online-serving benchmark result: the request rate it ran at and the latency statistic asked for. */
export interface ServingPoint {
  file: string;
  rate: number | null;
  latencyMs: number | null;
}

/** rate_max: the highest request rate whose latency meets the limit (the paper's latency-limited capacity). */
export function rateMaxFrom(points: readonly ServingPoint[], limitMs: number, field: string, what: string): number {
  for (const p of points) {
    if (p.rate === null || !(p.rate > 0)) throw new FacilityInputError(field, `${p.file}: no request rate (configured or achieved) in the result`);
    if (p.latencyMs === null) throw new FacilityInputError(field, `${p.file}: no ${what} in the result`);
  }
  const ok = points.filter((p) => p.latencyMs! <= limitMs);
  if (ok.length === 0) {
    const best = Math.min(...points.map((p) => p.latencyMs!));
    throw new FacilityInputError(field, `no benchmark meets ${what} <= ${limitMs} ms (lowest: ${best} ms)`);
  }
  return Math.max(...ok.map((p) => p.rate!));
}
