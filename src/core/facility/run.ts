import type { FacilityGridResult, FacilityLevel, Overheads } from '../../shared/facility';
import { respond } from './grid';
import { instanceShedding, simulateInference } from './inference';
import { bucketMeans, powerStats, type PowerStats } from './metrics';
import { buildModel, stepSeries, type BuiltModel, type ScenarioInput } from './model';
import { totalPower } from './overheads';
import { FacilityInputError } from './profile';
import { meanNodeHours, simulateTraining } from './training';

/** Bisection stops when the mean utilisation is this close to the target (fraction of nodes). */
export const UTIL_TOLERANCE = 0.0025;
export const MAX_BISECTION = 40;
/** Plot points per series. */
export const PLOT_POINTS = 1500;

export function replicaSeed(seed: number, replica: number): number {
  return (seed + Math.imul(replica, 1_000_003)) | 0;
}

/** One simulation; `power` off is the bisection's cheap mode (utilisation only). */
export function simulate(b: BuiltModel, load: number, seed: number, power: boolean) {
  if (b.kind === 'training') {
    const r = simulateTraining(b.m, load, seed, power, b.grid !== undefined);
    return { it: r.it, types: r.types, busy: r.busy, utilization: r.utilization, jobsStarted: r.jobsStarted, waitMeanH: r.waitMeanH, waitMaxH: r.waitMaxH, incomplete: 0, requests: 0, services: undefined };
  }
  const r = simulateInference(b.m, load, seed, power, power && b.grid !== undefined);
  return { it: r.it, types: r.services, busy: r.busy, utilization: r.utilization, jobsStarted: 0, waitMeanH: 0, waitMaxH: 0, incomplete: r.incomplete, requests: r.requests, services: r.services };
}

/** A first guess at the load for a target: jobs/day from busy node-hours per job; demand scale 1 for inference. */
export function firstGuess(b: BuiltModel, target: number): number {
  return b.kind === 'training' ? (target * b.m.nodes * 24) / meanNodeHours(b.m.types) : target;
}

export interface LoadFound {
  load: number;
  utilization: number;
  iterations: number;
}

/**
 * Bracketing root search on the load (daily job count, or inference demand multiplier) until the mean utilisation
 * of replica 0 is within UTIL_TOLERANCE of the target: a first guess from busy node-hours per job, a proportional
 * second point, then false position with the Illinois step (a bisection that uses the near-linear utilisation to
 * pick the split; it converges in a few runs where halving needs ~8). A generator: it yields each load to try and
 * is sent back its utilisation, so the caller runs the simulations (here, or in worker threads).
 */
export function* loadSearch(b: BuiltModel, target: number): Generator<number, LoadFound, number> {
  let it = 0;
  const close = (u: number) => Math.abs(u - target) <= UTIL_TOLERANCE;
  let lo = { x: 0, u: 0 };
  let hi = { x: Infinity, u: 1 };
  function* take(x: number): Generator<number, { x: number; u: number }, number> {
    const p = { x, u: yield x };
    it++;
    if (p.u < target && p.x > lo.x) lo = p;
    if (p.u >= target && p.x < hi.x) hi = p;
    return p;
  }
  let p = yield* take(firstGuess(b, target));
  for (let k = 0; !close(p.u) && hi.x === Infinity; k++) {
    if (k >= 12 || (k > 2 && p.u < lo.u + 1e-4 && p.x > lo.x))
      throw new FacilityInputError('targets', `utilisation ${pct(target)} is not reachable: at most ${pct(p.u)} with this pool and these jobs (the queue saturates)`);
    p = yield* take(p.u > 0 ? Math.min(p.x * 4, (p.x * target) / p.u) * 1.02 : p.x * 4);
  }
  let side = 0;
  while (!close(p.u) && it < MAX_BISECTION) {
    let ulo = lo.u;
    let uhi = hi.u;
    if (side === -1) uhi = target + (uhi - target) / 2;
    if (side === 1) ulo = target - (target - ulo) / 2;
    let x = lo.x + ((target - ulo) * (hi.x - lo.x)) / (uhi - ulo);
    if (!(x > lo.x && x < hi.x)) x = (lo.x + hi.x) / 2;
    p = yield* take(x);
    side = p.u < target ? -1 : 1;
  }
  return { load: p.x, utilization: p.u, iterations: it };
}

/** The load search run on this thread: each try is a simulation with power off (utilisation only). */
export function findLoad(b: BuiltModel, target: number, seed: number, onIteration?: (i: number, load: number, util: number) => void): LoadFound {
  const search = loadSearch(b, target);
  let step = search.next();
  for (let i = 1; !step.done; i++) {
    const u = simulate(b, step.value, seed, false).utilization;
    onIteration?.(i, step.value, u);
    step = search.next(u);
  }
  return step.value;
}

const pct = (u: number) => `${(u * 100).toFixed(1)} %`;

export interface ReplicaResult {
  utilization: number;
  it: PowerStats;
  total: PowerStats;
  cost: number;
  carbonT: number;
  jobsStarted: number;
  waitMeanH: number;
  waitMaxH: number;
  incomplete: number;
  requests: number;
  plotIt: number[];
  plotTotal: number[];
  bucketS: number;
  /** With a grid config: the response (power fields above are then after it; cost is on the grid draw). */
  grid?: FacilityGridResult;
  /** Full-resolution series, only when asked (CSV export); `grid` with a grid config. */
  full?: { it: Float64Array; total: Float64Array; busy: Int32Array; grid?: Float64Array };
}

export function runReplica(sc: ScenarioInput, b: BuiltModel, load: number, seed: number, keepFull = false): ReplicaResult {
  const r = simulate(b, load, seed, true);
  const c = sc.config;
  const ext = stepSeries(sc, r.it.length);
  if (b.grid && r.types) {
    // Inference: fewer instances, the requests they leave counted (in the level's incomplete requests too).
    const shedding = b.kind === 'inference' && r.services ? instanceShedding(b.m, r.services, b.grid.events.length) : null;
    const g = respond(b.grid, {
      stepS: c.step_s,
      nodes: c.nodes,
      idleW: c.idle_w,
      it: r.it,
      busy: r.busy,
      types: r.types,
      slope: overheadSlope(r.it.length, c.overheads, ext.temperature),
      fixedW: c.overheads.fixed_w,
      price: ext.price,
      flatPrice: c.tariff.price_per_mwh,
      ...(shedding ? { shed: shedding.shed } : {}),
    });
    const added = shedding ? shedding.incomplete.reduce((x, y) => x + y, 0) : 0;
    const names = b.grid.types.map((t) => t.name);
    const byService = (xs: number[]) => Object.fromEntries(names.map((n, j) => [n, xs[j]!]));
    const gridResult = shedding
      ? { ...g.result, incomplete_requests: byService(shedding.incomplete), events: g.result.events.map((e, i) => ({ ...e, incomplete_requests: byService(shedding.incompleteByEvent[i]!) })) }
      : g.result;
    const itStats = powerStats(g.it, c.step_s);
    const totalStats = g.facility === g.it ? itStats : powerStats(g.facility, c.step_s);
    const gridMWh = g.result.grid_energy_mwh;
    const pIt = bucketMeans(g.it, PLOT_POINTS);
    return {
      utilization: r.utilization,
      it: itStats,
      total: totalStats,
      cost: priced(g.grid, ext.price, c.tariff.price_per_mwh, gridMWh, c.step_s),
      carbonT: priced(g.grid, ext.carbon, c.tariff.carbon_g_per_kwh, gridMWh, c.step_s) / 1000,
      jobsStarted: r.jobsStarted,
      waitMeanH: r.waitMeanH,
      waitMaxH: r.waitMaxH,
      incomplete: r.incomplete + added,
      requests: r.requests,
      plotIt: pIt.values,
      plotTotal: g.facility === g.it ? pIt.values : bucketMeans(g.facility, PLOT_POINTS).values,
      bucketS: pIt.size * c.step_s,
      grid: { ...gridResult, series_w: bucketMeans(g.grid, PLOT_POINTS).values },
      full: keepFull ? { it: g.it, total: g.facility, busy: r.busy, grid: g.grid } : undefined,
    };
  }
  const total = totalPower(r.it, c.overheads, ext.temperature);
  const pIt = bucketMeans(r.it, PLOT_POINTS);
  const itStats = powerStats(r.it, c.step_s);
  const totalStats = total === r.it ? itStats : powerStats(total, c.step_s);
  return {
    utilization: r.utilization,
    it: itStats,
    total: totalStats,
    cost: priced(total, ext.price, c.tariff.price_per_mwh, totalStats.energyMWh, c.step_s),
    carbonT: priced(total, ext.carbon, c.tariff.carbon_g_per_kwh, totalStats.energyMWh, c.step_s) / 1000,
    jobsStarted: r.jobsStarted,
    waitMeanH: r.waitMeanH,
    waitMaxH: r.waitMaxH,
    incomplete: r.incomplete,
    requests: r.requests,
    plotIt: pIt.values,
    plotTotal: total === r.it ? pIt.values : bucketMeans(total, PLOT_POINTS).values,
    bucketS: pIt.size * c.step_s,
    full: keepFull ? { it: r.it, total, busy: r.busy } : undefined,
  };
}

/** d(facility power) / d(IT power) per step (overheads are linear in IT); null when there are none (slope 1). */
function overheadSlope(steps: number, o: Overheads, temperature: Float64Array | null): Float64Array | null {
  const ones = new Float64Array(steps).fill(1);
  const t = totalPower(ones, o, temperature);
  if (t === ones) return null;
  for (let k = 0; k < steps; k++) t[k] = t[k]! - o.fixed_w;
  return t;
}

/** Sum over steps of energy (MWh) x a per-step rate, or energy x the flat rate when no series is given. */
function priced(power: Float64Array, rate: Float64Array | null, flat: number, energyMWh: number, stepS: number): number {
  if (!rate) return energyMWh * flat;
  let sum = 0;
  for (let k = 0; k < power.length; k++) sum += power[k]! * rate[k]!;
  return (sum * stepS) / 3.6e9;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

/** A level's outcome: means over replicas, their sd, replica 0's series and the replicas' min/max band. */
export function summarize(target: number, load: number, reps: ReplicaResult[]): FacilityLevel {
  const f = (pick: (r: ReplicaResult) => number) => mean(reps.map(pick));
  const r0 = reps[0]!;
  const n = r0.plotIt.length;
  const lo: number[] = [];
  const hi: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = reps.map((r) => r.plotIt[i]!);
    lo.push(Math.min(...v));
    hi.push(Math.max(...v));
  }
  const ramp = (pick: (r: ReplicaResult) => number | null) => (pick(r0) === null ? null : f((r) => pick(r) ?? 0));
  return {
    target_utilization: target,
    load,
    utilization: f((r) => r.utilization),
    mean_w: f((r) => r.it.mean),
    peak_w: f((r) => r.it.peak),
    p99_w: f((r) => r.it.p99),
    mean_total_w: f((r) => r.total.mean),
    peak_total_w: f((r) => r.total.peak),
    ramp_1min_w: ramp((r) => r.it.ramp1min),
    ramp_1h_w: ramp((r) => r.it.ramp1h),
    energy_mwh: f((r) => r.it.energyMWh),
    energy_total_mwh: f((r) => r.total.energyMWh),
    cost: f((r) => r.cost),
    carbon_t: f((r) => r.carbonT),
    queue_wait_mean_h: f((r) => r.waitMeanH),
    queue_wait_max_h: f((r) => r.waitMaxH),
    jobs_started: f((r) => r.jobsStarted),
    incomplete_requests: f((r) => r.incomplete),
    incomplete_fraction: f((r) => (r.requests > 0 ? r.incomplete / r.requests : 0)),
    replicas: reps.length,
    sd: { mean_w: sd(reps.map((r) => r.it.mean)), peak_w: sd(reps.map((r) => r.it.peak)), p99_w: sd(reps.map((r) => r.it.p99)), utilization: sd(reps.map((r) => r.utilization)) },
    ldc_w: r0.it.ldc.map((_, i) => f((r) => r.it.ldc[i]!)),
    series: { t_h: r0.plotIt.map((_, i) => (i * r0.bucketS) / 3600), it_w: r0.plotIt, total_w: r0.plotTotal, band_lo_w: lo, band_hi_w: hi },
    ...(r0.grid ? { grid: r0.grid } : {}),
  };
}

/** Everything for one scenario in one thread (tests, small runs); the engine spreads the same calls over workers. */
export function runScenarioInline(sc: ScenarioInput, onProgress?: (done: number, total: number) => void): FacilityLevel[] {
  const b = buildModel(sc);
  const c = sc.config;
  const total = c.targets.length * (1 + c.replicas);
  let done = 0;
  return c.targets.map((target) => {
    const { load } = findLoad(b, target, c.seed);
    onProgress?.(++done, total);
    const reps: ReplicaResult[] = [];
    for (let r = 0; r < c.replicas; r++) {
      reps.push(runReplica(sc, b, load, replicaSeed(c.seed, r)));
      onProgress?.(++done, total);
    }
    return summarize(target, load, reps);
  });
}
