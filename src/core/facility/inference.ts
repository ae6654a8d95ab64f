import { Rng } from './rng';

/** Node power against the request rate one instance serves: linear between measured points, held at the ends. */
export interface RateCurve {
  rates: Float64Array;
  watts: Float64Array;
}

export function rateCurve(points: readonly (readonly [number, number])[]): RateCurve {
  return { rates: Float64Array.from(points.map((p) => p[0])), watts: Float64Array.from(points.map((p) => p[1])) };
}

export function powerAt(c: RateCurve, rate: number): number {
  const r = c.rates;
  const n = r.length;
  if (rate <= r[0]!) return c.watts[0]!;
  if (rate >= r[n - 1]!) return c.watts[n - 1]!;
  let i = 1;
  while (r[i]! < rate) i++;
  const f = (rate - r[i - 1]!) / (r[i]! - r[i - 1]!);
  return c.watts[i - 1]! + f * (c.watts[i]! - c.watts[i - 1]!);
}

export interface ResolvedService {
  name: string;
  peakRps: number;
  /** Demand shape per hour of the horizon (busiest hour of the busiest day = 1). */
  hourly: Float64Array;
  noiseSigma: number;
  rateMax: number;
  nodesPerInstance: number;
  maxInstances: number;
  curve: RateCurve;
}

export interface InferenceModel {
  nodes: number;
  idleW: number;
  stepS: number;
  steps: number;
  services: ResolvedService[];
}

export interface InferenceRun {
  it: Float64Array;
  busy: Int32Array;
  utilization: number;
  /** Requests beyond the instances' capacity (K x rate_max), summed over the horizon. */
  incomplete: number;
  requests: number;
}

/**
 * Per step and service: demand = scale x peak_rps x shape(hour) x log-normal noise; instances K = min(ceil(demand /
 * rate_max), max_instances) (nodes shared first come, first served in service order); each instance serves
 * demand / K up to rate_max, drawing the measured node power at that rate; the excess is counted as incomplete.
 */
export function simulateInference(m: InferenceModel, scale: number, seed: number, power: boolean): InferenceRun {
  const rng = new Rng(seed);
  const { steps, stepS, nodes: pool } = m;
  const it = new Float64Array(power ? steps : 0);
  const busy = new Int32Array(steps);
  const stepsPerHour = 3600 / stepS;
  let busySum = 0;
  let incomplete = 0;
  let requests = 0;
  for (let s = 0; s < steps; s++) {
    const h = Math.floor(s / stepsPerHour);
    let free = pool;
    let w = 0;
    for (const sv of m.services) {
      const noise = sv.noiseSigma > 0 ? Math.exp(sv.noiseSigma * rng.normal() - (sv.noiseSigma * sv.noiseSigma) / 2) : 1;
      const rate = scale * sv.peakRps * sv.hourly[h]! * noise;
      const k = Math.min(Math.ceil(rate / sv.rateMax), sv.maxInstances, Math.floor(free / sv.nodesPerInstance));
      const served = Math.min(rate, k * sv.rateMax);
      requests += rate * stepS;
      incomplete += (rate - served) * stepS;
      if (k > 0) {
        free -= k * sv.nodesPerInstance;
        if (power) w += k * sv.nodesPerInstance * powerAt(sv.curve, served / k);
      }
    }
    if (power) it[s] = w + free * m.idleW;
    busy[s] = pool - free;
    busySum += pool - free;
  }
  return { it, busy, utilization: busySum / (pool * steps), incomplete, requests };
}
