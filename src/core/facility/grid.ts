import type { FacilityGridResult, GridEventResult } from '../../shared/facility';
import { bucketMeans, valuesAtRanks, LDC_POINTS } from './metrics';

/**
 * The site's response to its grid (docs/facility.md, "Grid"), played over a simulated year: each step the facility
 * power is held under the limit of that step (the firm interconnection limit, or an event's) by, in order, the
 * battery, the generator, lower GPU caps chosen from the measured at_caps curves (least work lost per MW shed), and
 * pausing the flexible share of running jobs (their work deferred, run after the event on the nodes the schedule
 * leaves free: the rebound). The response is a fluid one on each job type's power and busy nodes: caps and pauses
 * act on shares of a type's running nodes and do not move the schedule's job starts and ends.
 */

/** One step of a type's cap ladder on its lower convex hull: moving a node share from the cap before to this cap. */
export interface CapSegment {
  capW: number;
  /** Share of the type's power shed (cumulative, at this cap) and share of its throughput lost (cumulative). */
  shed: number;
  loss: number;
}

export interface GridType {
  name: string;
  /** Mean uncapped power of a busy node (W), for work drained after an event. */
  busyW: number;
  meanNodes: number;
  flexible: number;
  /** The caps as measured, and their ladder on the hull of (shed, loss), shed increasing; empty: no caps. */
  points: CapPoint[];
  segments: CapSegment[];
}

export interface GridEventModel {
  name: string;
  request: number;
  due: number;
  end: number;
  reduceW?: number;
  reduceFrac?: number;
  limitW?: number;
}

export interface GridModel {
  types: GridType[];
  events: GridEventModel[];
  limitW: number | null;
  rampWPerMin: number | null;
  baselineSteps: number;
  caps: boolean;
  defer: boolean;
  battery: { w: number; wh: number; efficiency: number; socStart: number; standby: number } | null;
  generatorW: number;
  /** Holds every step's change of grid draw to the ramp rule with these (null: ramps are only counted). */
  smoothRamps: { battery: boolean; caps: boolean } | null;
}

/** A cap level as measured: the share of power the type keeps (power ratio) and of throughput (relative to uncapped). */
export interface CapPoint {
  capW: number;
  power: number;
  throughput: number;
}

/**
 * The ladder of a type's caps on the lower convex hull of (power shed, throughput lost): a cap above the hull is
 * never worth choosing (a mix of its neighbours sheds as much for less lost work), so the greedy fill is optimal.
 */
export function capHull(points: readonly CapPoint[]): CapSegment[] {
  const pts = points
    .map((p) => ({ capW: p.capW, shed: 1 - p.power, loss: 1 - p.throughput }))
    .filter((p) => p.shed > 0)
    .sort((a, b) => a.shed - b.shed || a.loss - b.loss);
  const hull: CapSegment[] = [];
  const origin = { capW: Infinity, shed: 0, loss: 0 };
  for (const p of pts) {
    while (hull.length > 0) {
      const a = hull.length > 1 ? hull[hull.length - 2]! : origin;
      const b = hull[hull.length - 1]!;
      // b lies on or above the line from a to p: drop it.
      if ((b.loss - a.loss) * (p.shed - a.shed) >= (p.loss - a.loss) * (b.shed - a.shed)) hull.pop();
      else break;
    }
    if (hull.length === 0 || p.shed > hull[hull.length - 1]!.shed) hull.push(p);
  }
  return hull;
}

export interface CapChoice {
  /** Power shed (W) and work lost (node-steps) per type. */
  shedW: number[];
  lossNodeSteps: number[];
  /** Per type, the share of its running nodes at each hull segment's cap (segments in order). */
  shares: number[][];
}

/**
 * The caps that shed `needW` with the least work lost: each type's running power `powerW[j]` on `busy[j]` nodes can
 * move shares of its nodes down its hull; the segments of all types, sorted by work lost per W shed, are filled in
 * that order until the need is met (optimal for shares of nodes: the fractional multiple-choice knapsack). When
 * every segment is full and the need is not met, every type is at its deepest cap.
 */
export function chooseCaps(types: readonly GridType[], powerW: ArrayLike<number>, busy: ArrayLike<number>, needW: number): CapChoice {
  const segs: { j: number; k: number; dS: number; dL: number }[] = [];
  types.forEach((t, j) => {
    const P = powerW[j]!;
    const n = busy[j]!;
    if (!(P > 0) || !(n > 0)) return;
    let prevS = 0;
    let prevL = 0;
    t.segments.forEach((sg, k) => {
      segs.push({ j, k, dS: P * (sg.shed - prevS), dL: n * (sg.loss - prevL) });
      prevS = sg.shed;
      prevL = sg.loss;
    });
  });
  segs.sort((a, b) => a.dL * b.dS - b.dL * a.dS);
  const shedW = types.map(() => 0);
  const lossNodeSteps = types.map(() => 0);
  const shares = types.map((t) => t.segments.map(() => 0));
  // Each segment's share moves from the previous cap to this one: the share at segment k is what moved past k - 1
  // and not on to k + 1; filled in order of efficiency, a type's segments fill in ladder order (the hull's slopes rise).
  const moved = types.map((t) => t.segments.map(() => 0));
  let left = needW;
  for (const s of segs) {
    if (left <= 0) break;
    const x = s.dS <= left ? 1 : left / s.dS;
    moved[s.j]![s.k] = x;
    shedW[s.j]! += x * s.dS;
    lossNodeSteps[s.j]! += x * s.dL;
    left -= x * s.dS;
  }
  moved.forEach((m, j) => m.forEach((x, k) => (shares[j]![k] = x - (m[k + 1] ?? 0))));
  return { shedW, lossNodeSteps, shares };
}

export interface GridInput {
  stepS: number;
  nodes: number;
  idleW: number;
  /** IT power and busy nodes per step and, per type, its power and busy nodes. */
  it: Float64Array;
  busy: Int32Array;
  types: { power: Float64Array; busy: Float64Array }[];
  /** Facility power = slope x IT + fixed (overheads are linear in IT): the slope per step (null: 1) and fixed W. */
  slope: Float64Array | null;
  fixedW: number;
  /** Price per MWh per step (null: flat). */
  price: Float64Array | null;
  flatPrice: number;
  /** Inference sites: fewer instances at step s (after storage and generation; caps and pauses have no ladder there). */
  shed?: (s: number, needW: number, ev: number) => { shedW: number; lossNodeSteps: number[] };
}

export interface GridRun {
  /** IT and facility power after caps, pauses and drained work; grid draw after storage and generation. */
  it: Float64Array;
  facility: Float64Array;
  grid: Float64Array;
  result: Omit<FacilityGridResult, 'series_w'>;
  lossNodeSteps: number;
  busyNodeSteps: number;
  /** Deferred work still waiting at the end of the horizon, and the work drained (node-steps). */
  backlogNodeSteps: number;
  drainedNodeSteps: number;
  /** Battery energy in (charged from the grid), out (delivered), and state of charge at the start and end (Wh). */
  battery: { inWh: number; outWh: number; socStartWh: number; socEndWh: number } | null;
}

interface EventAcc {
  baseline: number;
  limit: number;
  loss: number[];
  deferred: number[];
  drained: number[];
  pausedMax: number[];
  met: number;
  firstMet: number;
  shortfallWh: number;
  energyWh: number;
  cost: number;
  batteryWh: number;
  generatorWh: number;
  reboundPeak: number;
  reboundEnd: number;
}

const EPS_W = 1e-6;

/** Plays the grid response over the year (see the module comment). */
export function respond(g: GridModel, inp: GridInput): GridRun {
  const { stepS, idleW, it: it0, types: tr, slope, fixedW, price, flatPrice } = inp;
  const steps = it0.length;
  const T = g.types.length;
  const dtH = stepS / 3600;
  const it = new Float64Array(steps);
  // Without overheads the facility's power is its IT power: one array for both.
  const plainSite = slope === null && fixedW === 0;
  const facility = plainSite ? it : new Float64Array(steps);
  const grid = new Float64Array(steps);
  const evLimit = new Float64Array(steps).fill(Infinity);
  const evOf = new Int32Array(steps).fill(-1);
  const evs: EventAcc[] = g.events.map(() => ({
    baseline: 0,
    limit: Infinity,
    loss: Array(T).fill(0),
    deferred: Array(T).fill(0),
    drained: Array(T).fill(0),
    pausedMax: Array(T).fill(0),
    met: 0,
    firstMet: -1,
    shortfallWh: 0,
    energyWh: 0,
    cost: 0,
    batteryWh: 0,
    generatorWh: 0,
    reboundPeak: -Infinity,
    reboundEnd: 0,
  }));
  const backlog = new Float64Array(T);
  /** Which event each type's backlog came from (the last one that deferred work). */
  let backlogEvent = -1;
  let backlogged = false;
  let yearDrained = 0;
  const yearLoss = new Float64Array(T);
  const yearDeferred = new Float64Array(T);
  const bat = g.battery;
  const etaC = bat ? Math.sqrt(bat.efficiency) : 1;
  const etaD = etaC;
  let soc = bat ? bat.socStart * bat.wh : 0;
  // Between events the battery recharges to this (full, unless it also smooths ramps: then room is left for falls).
  const standbyWh = bat ? bat.standby * bat.wh : 0;
  let inWh = 0;
  let outWh = 0;
  let genWh = 0;
  let genSteps = 0;
  let atLimit = 0;
  let overLimit = 0;
  let busyNodeSteps = 0;
  for (let k = 0; k < steps; k++) busyNodeSteps += inp.busy[k]!;
  const P = new Float64Array(T);
  const N = new Float64Array(T);
  const capLossPerNode = new Float64Array(T);
  let nextEvent = 0;
  let lastBaseline = Infinity;
  const order = g.events.map((_, i) => i).sort((a, b) => g.events[a]!.request - g.events[b]!.request);
  // The ramp rule per step (a hair under it, so a change held to it is not counted as breaking it by rounding): each
  // step within it keeps every 1-min change (and 15-min, 15x) within the rule. Rules on steps over 15 min are unseen.
  const sm = g.smoothRamps && g.rampWPerMin !== null && stepS <= 900 ? g.smoothRamps : null;
  const rampStepW = sm ? ((g.rampWPerMin! * stepS) / 60) * (1 - 1e-9) : null;
  let rampBatteryWh = 0;
  let rampSteps = 0;
  const rampLoss = new Float64Array(T);

  for (let s = 0; s < steps; s++) {
    // An event's limit is fixed at its request, from the grid draw over the baseline window before it.
    while (nextEvent < order.length && g.events[order[nextEvent]!]!.request <= s) {
      const i = order[nextEvent++]!;
      const e = g.events[i]!;
      const from = Math.max(0, e.request - g.baselineSteps);
      let sum = 0;
      for (let k = from; k < e.request; k++) sum += grid[k]!;
      const baseline = e.request > from ? sum / (e.request - from) : (slope ? slope[0]! : 1) * it0[0]! + fixedW;
      const limit = e.limitW ?? (e.reduceW !== undefined ? baseline - e.reduceW : baseline * (1 - e.reduceFrac!));
      evs[i]!.baseline = baseline;
      lastBaseline = baseline;
      evs[i]!.limit = limit;
      for (let k = e.due; k < Math.min(steps, e.end); k++) {
        if (limit < evLimit[k]!) evLimit[k] = limit;
        evOf[k] = i;
      }
    }
    const a = slope ? slope[s]! : 1;
    const limit = Math.min(g.limitW ?? Infinity, evLimit[s]!);
    const ev = evOf[s]!;
    // Quiet (no limit now, nothing deferred): the site draws what the schedule makes it draw, plus any recharging,
    // up to the next request or event window; run in small loops of their own (one pass each, compiled once).
    if (limit === Infinity && !backlogged && g.limitW === null && rampStepW === null) {
      let until = nextEvent < order.length ? g.events[order[nextEvent]!]!.request : steps;
      for (const e of g.events) if (e.due > s && e.due < until && e.request <= s) until = e.due;
      until = Math.max(s + 1, Math.min(steps, until));
      plainRun(it0, slope, fixedW, s, until, it, facility, grid);
      if (bat && soc < standbyWh) {
        const r = rechargeRun(facility, grid, s, until, soc, standbyWh, bat.w, etaC, dtH, lastBaseline);
        soc = r.soc;
        inWh += r.inWh;
      }
      s = until - 1;
      continue;
    }
    let busyAll = 0;
    for (let j = 0; j < T; j++) {
      P[j] = tr[j]!.power[s]!;
      N[j] = tr[j]!.busy[s]!;
      busyAll += N[j]!;
    }
    let IT = it0[s]!;
    // Deferred work runs on the nodes the schedule leaves free, outside events, within the limit's headroom.
    if (backlogged && ev < 0) {
      let freeLeft = inp.nodes - busyAll;
      let headIT = Number.isFinite(limit) ? (limit - (a * IT + fixedW)) / a : Infinity;
      let left = 0;
      for (let j = 0; j < T; j++) {
        const extra = g.types[j]!.busyW - idleW;
        let m = Math.min(backlog[j]!, freeLeft, extra > 0 ? Math.max(0, headIT) / extra : Infinity);
        if (!(m > 0)) m = 0;
        backlog[j] = backlog[j]! - m;
        freeLeft -= m;
        headIT -= m * extra;
        IT += m * extra;
        if (backlogEvent >= 0) evs[backlogEvent]!.drained[j]! += m;
        yearDrained += m;
        left += backlog[j]!;
      }
      if (left <= 1e-9) {
        if (backlogEvent >= 0) evs[backlogEvent]!.reboundEnd = s + 1;
        backlog.fill(0);
        backlogEvent = -1;
        backlogged = false;
      }
    }
    let need = a * IT + fixedW - limit;
    let dis = 0;
    let gen = 0;
    let ch = 0;
    if (need > EPS_W) {
      atLimit++;
      if (bat) {
        dis = Math.min(need, bat.w, (soc * etaD) / dtH);
        soc -= (dis * dtH) / etaD;
        outWh += dis * dtH;
        need -= dis;
      }
      if (need > EPS_W && g.generatorW > 0) {
        gen = Math.min(need, g.generatorW);
        genWh += gen * dtH;
        genSteps++;
        need -= gen;
      }
      if (need > EPS_W && inp.shed) {
        const r = inp.shed(s, need / a, ev);
        IT -= r.shedW;
        need -= a * r.shedW;
        for (let j = 0; j < T; j++) {
          yearLoss[j] = yearLoss[j]! + r.lossNodeSteps[j]!;
          if (ev >= 0) evs[ev]!.loss[j]! += r.lossNodeSteps[j]!;
        }
      }
      if (need > EPS_W && g.caps) {
        const c = chooseCaps(g.types, P, N, need / a);
        let shed = 0;
        for (let j = 0; j < T; j++) {
          shed += c.shedW[j]!;
          P[j] = P[j]! - c.shedW[j]!;
          yearLoss[j] = yearLoss[j]! + c.lossNodeSteps[j]!;
          if (ev >= 0) evs[ev]!.loss[j]! += c.lossNodeSteps[j]!;
          // Cap loss per node of the type this step, given back for the nodes then paused instead.
          capLossPerNode[j] = N[j]! > 0 ? c.lossNodeSteps[j]! / N[j]! : 0;
        }
        IT -= shed;
        need -= a * shed;
      } else capLossPerNode.fill(0);
      if (need > EPS_W && g.defer) {
        // Pause the nodes that shed the most per node first: fewest jobs delayed per MW.
        const byGain = g.types.map((t, j) => ({ j, gain: N[j]! > 0 ? P[j]! / N[j]! - idleW : 0 })).filter((x) => x.gain > 0 && g.types[x.j]!.flexible > 0);
        byGain.sort((x, y) => y.gain - x.gain);
        for (const { j, gain } of byGain) {
          if (need <= EPS_W) break;
          const m = Math.min(g.types[j]!.flexible * N[j]!, need / a / gain);
          IT -= m * gain;
          need -= a * m * gain;
          backlog[j] = backlog[j]! + m;
          yearDeferred[j] = yearDeferred[j]! + m;
          // A paused node's cap loss is not lost: its whole step of work is deferred.
          const back = m * capLossPerNode[j]!;
          yearLoss[j] = yearLoss[j]! - back;
          if (ev >= 0) {
            evs[ev]!.loss[j]! -= back;
            evs[ev]!.deferred[j]! += m;
            evs[ev]!.pausedMax[j] = Math.max(evs[ev]!.pausedMax[j]!, m);
          }
          backlogged = true;
          if (ev >= 0) backlogEvent = ev;
        }
      }
      if (need > EPS_W) overLimit++;
    } else if (bat && ev < 0 && soc < standbyWh) {
      // Recharge outside events, within the limit's headroom; without a firm limit, up to the last event's baseline
      // (recharging at full power on a busy site would make a new peak).
      const cap = Number.isFinite(limit) ? limit : lastBaseline;
      ch = Math.min(bat.w, (standbyWh - soc) / etaC / dtH, Number.isFinite(cap) ? Math.max(0, cap - (a * IT + fixedW)) : Infinity);
      soc += ch * etaC * dtH;
      inWh += ch * dtH;
    } else if (bat && ev < 0 && sm?.battery && soc > standbyWh) {
      // Smoothing keeps room to absorb falls: above its standby charge the battery gives back to the site, gently (half
      // the ramp rule a step, so starting and stopping the give-back stays within the rule).
      dis = Math.min(bat.w, rampStepW! / 2, ((soc - standbyWh) * etaD) / dtH);
      soc -= (dis * dtH) / etaD;
      outWh += dis * dtH;
    }
    let gd = a * IT + fixedW - dis - gen + ch;
    if (rampStepW !== null && s > 0) {
      // Smoothing: a rise past the rule is met by charging less, then discharging more, then capping GPUs (the jobs
      // starting run slower: work lost, on the power left after the response's own caps); a fall past it by
      // discharging less, then charging more, never above the step's limit. What is left breaks the rule.
      const prev = grid[s - 1]!;
      let over = gd - (prev + rampStepW);
      const under = Math.min(prev - rampStepW, limit) - gd;
      if (over > EPS_W || under > EPS_W) rampSteps++;
      if (over > EPS_W && sm!.battery && bat) {
        const lessCh = Math.min(ch, over);
        const more = Math.min(over - lessCh, bat.w - dis, Math.max(0, (soc - (lessCh * etaC * dtH)) * etaD) / dtH);
        ch -= lessCh;
        soc -= lessCh * etaC * dtH + (more * dtH) / etaD;
        inWh -= lessCh * dtH;
        dis += more;
        outWh += more * dtH;
        rampBatteryWh += (lessCh + more) * dtH;
        over -= lessCh + more;
      }
      if (over > EPS_W && sm!.caps) {
        const c = chooseCaps(g.types, P, N, over / a);
        for (let j = 0; j < T; j++) {
          IT -= c.shedW[j]!;
          yearLoss[j] = yearLoss[j]! + c.lossNodeSteps[j]!;
          rampLoss[j] = rampLoss[j]! + c.lossNodeSteps[j]!;
          if (ev >= 0) evs[ev]!.loss[j]! += c.lossNodeSteps[j]!;
        }
      }
      if (under > EPS_W && sm!.battery && bat) {
        const lessDis = Math.min(dis, under);
        const more = Math.min(under - lessDis, bat.w - ch, Math.max(0, bat.wh - soc - (lessDis * dtH) / etaD) / etaC / dtH);
        dis -= lessDis;
        soc += (lessDis * dtH) / etaD + more * etaC * dtH;
        outWh -= lessDis * dtH;
        ch += more;
        inWh += more * dtH;
        rampBatteryWh += (lessDis + more) * dtH;
      }
      gd = a * IT + fixedW - dis - gen + ch;
    }
    it[s] = IT;
    const fac = a * IT + fixedW;
    facility[s] = fac;
    grid[s] = gd;
    if (ev >= 0) {
      const E = evs[ev]!;
      if (gd <= E.limit + EPS_W + 1e-9 * Math.abs(E.limit)) {
        E.met++;
        if (E.firstMet < 0) E.firstMet = s;
      }
      E.shortfallWh += Math.max(0, gd - E.limit) * dtH;
      E.energyWh += gd * dtH;
      E.cost += (gd * dtH * (price ? price[s]! : flatPrice)) / 1e6;
      E.batteryWh += dis * dtH;
      E.generatorWh += gen * dtH;
    }
  }

  const lag1 = stepS > 60 ? 0 : Math.round(60 / stepS);
  const lag15 = stepS > 900 ? 0 : Math.round(900 / stepS);
  const rampW = g.rampWPerMin;
  const rampsOf = (x: Float64Array) => ramps(x, lag1, lag15, rampW);
  const before = rampsOf(facility);
  const after = rampsOf(grid);
  // The same response without smoothing, for the violations smoothing removed.
  const raw = sm ? respond({ ...g, smoothRamps: null }, inp) : null;
  let gsum = 0;
  let gmin = Infinity;
  let gmax = -Infinity;
  for (let k = 0; k < steps; k++) {
    const v = grid[k]!;
    gsum += v;
    if (v < gmin) gmin = v;
    if (v > gmax) gmax = v;
  }
  const ldcRanks = Array.from({ length: LDC_POINTS }, (_, i) => Math.min(steps - 1, Math.max(0, Math.round((1 - i / (LDC_POINTS - 1)) * (steps - 1)))));
  const ldc = valuesAtRanks(grid, ldcRanks, { min: gmin, max: gmax });
  const names = g.types.map((t) => t.name);
  const rec = (xs: ArrayLike<number>, f = dtH) => Object.fromEntries(names.map((n, j) => [n, xs[j]! * f]));
  const events: GridEventResult[] = g.events.map((e, i) => {
    const E = evs[i]!;
    const end = Math.min(steps, e.end);
    const reboundEnd = E.reboundEnd > 0 ? E.reboundEnd : backlogEvent === i ? steps : end;
    for (let k = end; k < Math.min(steps, Math.max(reboundEnd, end + Math.round(3600 / stepS))); k++) E.reboundPeak = Math.max(E.reboundPeak, grid[k]!);
    const win = Math.max(0, end - e.due);
    let dSum = 0;
    let dMin = Infinity;
    for (let k = e.due; k < end; k++) {
      const d = E.baseline - grid[k]!;
      dSum += d;
      if (d < dMin) dMin = d;
    }
    const jobsDelayed = names.reduce((acc, _, j) => acc + E.pausedMax[j]! / g.types[j]!.meanNodes, 0);
    const pausedNodes = E.pausedMax.reduce((x, y) => x + y, 0);
    const deferredNodeSteps = E.deferred.reduce((x, y) => x + y, 0);
    const drainedW = E.drained.reduce((acc, m, j) => acc + m * (g.types[j]!.busyW - idleW), 0);
    return {
      name: e.name,
      request_h: e.request * dtH,
      due_h: e.due * dtH,
      end_h: e.end * dtH,
      baseline_w: E.baseline,
      requested_w: E.baseline - E.limit,
      limit_w: E.limit,
      delivered_mean_w: win > 0 ? dSum / win : 0,
      delivered_min_w: win > 0 ? dMin : 0,
      met_share: win > 0 ? E.met / win : 1,
      time_to_reach_min: E.firstMet >= 0 ? ((E.firstMet - e.request) * stepS) / 60 : null,
      shortfall_mwh: E.shortfallWh / 1e6,
      work_lost_node_h: rec(E.loss),
      deferred_node_h: rec(E.deferred),
      jobs_delayed: jobsDelayed,
      // Each paused node waits, on average, its deferred steps (per paused node) plus the drain after the event.
      added_wait_mean_h: pausedNodes > 0 ? (deferredNodeSteps / pausedNodes) * dtH + drainDelayH(e, reboundEnd, dtH) : 0,
      energy_mwh: E.energyWh / 1e6,
      cost: E.cost,
      battery_mwh: E.batteryWh / 1e6,
      generator_mwh: E.generatorWh / 1e6,
      rebound_peak_w: Number.isFinite(E.reboundPeak) ? E.reboundPeak - E.baseline : 0,
      rebound_node_h: E.drained.reduce((x, y) => x + y, 0) * dtH,
      // The IT energy of the drained work (above the idle power of the nodes it ran on).
      rebound_mwh: (drainedW * dtH) / 1e6,
      rebound_end_h: reboundEnd * dtH,
      series: eventSeries(e, E, grid, steps, stepS, reboundEnd),
    };
  });
  const lossSum = yearLoss.reduce((x, y) => x + y, 0);
  return {
    it,
    facility,
    grid,
    lossNodeSteps: lossSum,
    busyNodeSteps,
    backlogNodeSteps: backlog.reduce((x, y) => x + y, 0),
    drainedNodeSteps: yearDrained,
    battery: bat ? { inWh, outWh, socStartWh: bat.socStart * bat.wh, socEndWh: soc } : null,
    result: {
      limit_w: g.limitW,
      grid_mean_w: gsum / steps,
      grid_peak_w: gmax,
      grid_energy_mwh: (gsum * dtH) / 1e6,
      grid_ldc_w: ldc,
      hours_at_limit: atLimit * dtH,
      hours_over_limit: overLimit * dtH,
      work_lost_node_h: rec(yearLoss),
      work_lost_share: busyNodeSteps > 0 ? lossSum / busyNodeSteps : 0,
      deferred_node_h: rec(yearDeferred),
      ramp_1min_w: lag1 > 0 ? after.max1 : null,
      ramp_15min_w: lag15 > 0 ? after.max15 : null,
      ramp_violations_before: before.violations,
      ramp_violations: after.violations,
      ...(raw && sm
        ? {
            ramp_smoothing: {
              by: [...(sm.battery ? (['battery'] as const) : []), ...(sm.caps ? (['caps'] as const) : [])],
              violations_unsmoothed: raw.result.ramp_violations,
              ramp_1min_unsmoothed_w: raw.result.ramp_1min_w,
              ramp_15min_unsmoothed_w: raw.result.ramp_15min_w,
              steps_smoothed: rampSteps,
              battery_mwh: rampBatteryWh / 1e6,
              work_lost_node_h: rec(rampLoss),
            },
          }
        : {}),
      battery: bat
        ? { charged_mwh: inWh / 1e6, discharged_mwh: outWh / 1e6, losses_mwh: (inWh - outWh - (soc - bat.socStart * bat.wh)) / 1e6, soc_start_mwh: (bat.socStart * bat.wh) / 1e6, soc_end_mwh: soc / 1e6, cycles: outWh / bat.wh }
        : null,
      generator_mwh: genWh / 1e6,
      generator_hours: genSteps * dtH,
      events,
    },
  };
}

/** Steps [from, to) at rest: IT as simulated, facility power through the overheads, grid draw the same. */
function plainRun(it0: Float64Array, slope: Float64Array | null, fixedW: number, from: number, to: number, it: Float64Array, facility: Float64Array, grid: Float64Array): void {
  it.set(it0.subarray(from, to), from);
  if (facility !== it) for (let k = from; k < to; k++) facility[k] = (slope ? slope[k]! : 1) * it0[k]! + fixedW;
  grid.set(facility.subarray(from, to), from);
}

/** Recharging over steps [from, to) while the battery is not full, up to `capW` of grid draw (none when infinite). */
function rechargeRun(facility: Float64Array, grid: Float64Array, from: number, to: number, soc: number, wh: number, w: number, etaC: number, dtH: number, capW: number) {
  let inWh = 0;
  for (let k = from; k < to && soc < wh; k++) {
    const fac = facility[k]!;
    const ch = Math.min(w, (wh - soc) / etaC / dtH, capW === Infinity ? Infinity : Math.max(0, capW - fac));
    soc += ch * etaC * dtH;
    inWh += ch * dtH;
    grid[k] = fac + ch;
  }
  return { soc, inWh };
}

/** Mean time from the event's end until its deferred work ran (half the drain: the backlog drains as a fluid). */
function drainDelayH(e: GridEventModel, reboundEnd: number, dtH: number): number {
  return (Math.max(0, reboundEnd - e.end) * dtH) / 2;
}

/** Largest 1 min and 15 min changes and the steps whose change breaks the ramp rule (15 min: 15x the 1 min rate). */
function ramps(x: Float64Array, lag1: number, lag15: number, ratePerMin: number | null) {
  let max1 = 0;
  let max15 = 0;
  let violations = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    let bad = false;
    if (lag1 > 0 && i >= lag1) {
      const d = Math.abs(v - x[i - lag1]!);
      if (d > max1) max1 = d;
      if (ratePerMin !== null && d > ratePerMin) bad = true;
    }
    if (lag15 > 0 && i >= lag15) {
      const d = Math.abs(v - x[i - lag15]!);
      if (d > max15) max15 = d;
      if (ratePerMin !== null && d > 15 * ratePerMin) bad = true;
    }
    if (bad) violations++;
  }
  return { max1, max15, violations };
}

const EVENT_POINTS = 400;

/** Requested and delivered reduction from an hour before the request to the end of the rebound (bucket means). */
function eventSeries(e: GridEventModel, E: EventAcc, grid: Float64Array, steps: number, stepS: number, reboundEnd: number) {
  const hour = Math.round(3600 / stepS);
  const from = Math.max(0, e.request - hour);
  const to = Math.min(steps, Math.max(reboundEnd, e.end) + hour);
  const req = new Float64Array(Math.max(0, to - from));
  const del = new Float64Array(req.length);
  for (let k = from; k < to; k++) {
    req[k - from] = k >= e.due && k < e.end ? E.baseline - E.limit : 0;
    del[k - from] = E.baseline - grid[k]!;
  }
  const r = bucketMeans(req, EVENT_POINTS);
  return { t_h: r.values.map((_, i) => ((from + i * r.size) * stepS) / 3600), requested_w: r.values, delivered_w: bucketMeans(del, EVENT_POINTS).values };
}
