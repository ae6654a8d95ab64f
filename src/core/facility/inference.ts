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
  /** Per service and step, with `perService` (the grid response): its power, busy nodes, demand and instances. */
  services?: { power: Float64Array; busy: Float64Array; rate: Float64Array; instances: Int32Array }[];
}

/**
 * Per step and service: demand = scale x peak_rps x shape(hour) x log-normal noise; instances K = min(ceil(demand /
 * rate_max), max_instances) (nodes shared first come, first served in service order); each instance serves
 * demand / K up to rate_max, drawing the measured node power at that rate; the excess is counted as incomplete.
 */
export function simulateInference(m: InferenceModel, scale: number, seed: number, power: boolean, perService = false): InferenceRun {
  const rng = new Rng(seed);
  const { steps, stepS, nodes: pool } = m;
  const it = new Float64Array(power ? steps : 0);
  const per = perService ? m.services.map(() => ({ power: new Float64Array(steps), busy: new Float64Array(steps), rate: new Float64Array(steps), instances: new Int32Array(steps) })) : null;
  const busy = new Int32Array(steps);
  const stepsPerHour = 3600 / stepS;
  let busySum = 0;
  let incomplete = 0;
  let requests = 0;
  for (let s = 0; s < steps; s++) {
    const h = Math.floor(s / stepsPerHour);
    let free = pool;
    let w = 0;
    for (let j = 0; j < m.services.length; j++) {
      const sv = m.services[j]!;
      const noise = sv.noiseSigma > 0 ? Math.exp(sv.noiseSigma * rng.normal() - (sv.noiseSigma * sv.noiseSigma) / 2) : 1;
      const rate = scale * sv.peakRps * sv.hourly[h]! * noise;
      const k = Math.min(Math.ceil(rate / sv.rateMax), sv.maxInstances, Math.floor(free / sv.nodesPerInstance));
      const served = Math.min(rate, k * sv.rateMax);
      requests += rate * stepS;
      incomplete += (rate - served) * stepS;
      const kw = k > 0 && power ? k * sv.nodesPerInstance * powerAt(sv.curve, served / k) : 0;
      if (k > 0) {
        free -= k * sv.nodesPerInstance;
        w += kw;
      }
      if (per) {
        const q = per[j]!;
        q.power[s] = kw;
        q.busy[s] = k * sv.nodesPerInstance;
        q.rate[s] = rate;
        q.instances[s] = k;
      }
    }
    if (power) it[s] = w + free * m.idleW;
    busy[s] = pool - free;
    busySum += pool - free;
  }
  return { it, busy, utilization: busySum / (pool * steps), incomplete, requests, ...(per ? { services: per } : {}) };
}

/** What fewer instances cost: per service, the requests left incomplete (beyond those of the schedule) and their steps. */
export interface InstanceShedding {
  /** Sheds at least `needW` of IT power at step s (whole instances) or all it can; work lost in node-steps by service. */
  shed: (s: number, needW: number, ev: number) => { shedW: number; lossNodeSteps: number[] };
  /** Requests made incomplete by the response, by service: the year's and per event (index as in the grid model). */
  incomplete: number[];
  incompleteByEvent: number[][];
}

/**
 * The inference grid response: fewer instances. At a step over its limit, instances are stopped one at a time, each
 * time the one of the service that loses the fewest requests per W shed (its nodes go idle; the instances left serve
 * the demand up to rate_max each, drawing the measured power at their new rate), until the need is met or none is
 * left; then any stopped instance the need can spare starts again (whole instances overshoot), the most requests
 * first. The requests beyond the instances left count as incomplete. Greedy over whole instances: not optimal for
 * every mix of services (a knapsack is not), tested against every choice on a small site.
 */
export function instanceShedding(m: InferenceModel, per: NonNullable<InferenceRun['services']>, events: number): InstanceShedding {
  const S = m.services.length;
  const incomplete = new Array<number>(S).fill(0);
  const incompleteByEvent = Array.from({ length: events }, () => new Array<number>(S).fill(0));
  const k = new Int32Array(S);
  // A service's IT power and requests served at k instances (nodes not serving are idle).
  const at = (j: number, s: number, kk: number) => {
    const sv = m.services[j]!;
    const rate = per[j]!.rate[s]!;
    const served = Math.min(rate, kk * sv.rateMax);
    const n = sv.nodesPerInstance;
    return { w: kk > 0 ? kk * n * powerAt(sv.curve, served / kk) : 0, idle: kk * n * m.idleW, served };
  };
  const shed = (s: number, needW: number, ev: number) => {
    for (let j = 0; j < S; j++) k[j] = per[j]!.instances[s]!;
    const lossNodeSteps = new Array<number>(S).fill(0);
    let shedW = 0;
    while (shedW < needW) {
      let best = -1;
      let bestW = 0;
      let bestReq = 0;
      for (let j = 0; j < S; j++) {
        if (k[j]! <= 0) continue;
        const a = at(j, s, k[j]!);
        const b = at(j, s, k[j]! - 1);
        // Stopping an instance: its nodes idle, the others serve more.
        const dW = a.w - b.w - (a.idle - b.idle);
        const dReq = a.served - b.served;
        if (dW > 0 && (best < 0 || dReq * bestW < bestReq * dW)) {
          best = j;
          bestW = dW;
          bestReq = dReq;
        }
      }
      if (best < 0) break;
      k[best]!--;
      shedW += bestW;
    }
    // Whole instances overshoot: start again any stopped instance the need can spare, the most requests first.
    for (;;) {
      let best = -1;
      let bestW = 0;
      let bestReq = -1;
      for (let j = 0; j < S; j++) {
        if (k[j]! >= per[j]!.instances[s]!) continue;
        const a = at(j, s, k[j]! + 1);
        const b = at(j, s, k[j]!);
        const dW = a.w - b.w - (a.idle - b.idle);
        const dReq = a.served - b.served;
        if (shedW - dW >= needW && dReq > bestReq) {
          best = j;
          bestW = dW;
          bestReq = dReq;
        }
      }
      if (best < 0) break;
      k[best]!++;
      shedW -= bestW;
    }
    for (let j = 0; j < S; j++) {
      const stopped = per[j]!.instances[s]! - k[j]!;
      if (stopped === 0) continue;
      const lost = (at(j, s, per[j]!.instances[s]!).served - at(j, s, k[j]!).served) * m.stepS;
      lossNodeSteps[j] = stopped * m.services[j]!.nodesPerInstance;
      incomplete[j]! += lost;
      if (ev >= 0) incompleteByEvent[ev]![j]! += lost;
    }
    return { shedW, lossNodeSteps };
  };
  return { shed, incomplete, incompleteByEvent };
}
