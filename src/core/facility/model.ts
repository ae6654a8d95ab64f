import type { FacilityConfig, ProfileSource, RatePower } from '../../shared/facility';
import { builtinProfile, builtinRateCurve, throughputAtCap } from './builtin';
import { hourlyShape, parseStart } from './calendar';
import { powerAt, rateCurve, type InferenceModel, type ResolvedService } from './inference';
import { climate, perStep, type YearSeries } from './overheads';
import { checkProfile, FacilityInputError, toSteps, type NodeProfile } from './profile';
import { sampler } from './rng';
import type { ResolvedJobType } from './job-table';
import type { TrainingModel } from './training';
import { capHull, type CapPoint, type GridModel, type GridType } from './grid';

/** One scenario ready to simulate: a config whose profiles are built-in or inline, and the CSV series it names. */
export interface ScenarioInput {
  name: string;
  config: FacilityConfig;
  series: { price?: YearSeries; carbon?: YearSeries; temperature?: YearSeries };
}

export type BuiltModel = { kind: 'training'; m: TrainingModel; grid?: GridModel } | { kind: 'inference'; m: InferenceModel; grid?: GridModel };

const UNIT_FACTOR = { W: 1, kW: 1000, mW: 0.001 } as const;

/** A profile source's per-node W series (inline values are converted from their units and divided by their nodes). */
export function nodeProfile(src: ProfileSource, field: string, ratedW: number, capW?: number): NodeProfile {
  let p: NodeProfile;
  if (src.builtin !== undefined) p = builtinProfile(src.builtin, `${field}.builtin`, capW);
  else if (src.power_w !== undefined) {
    if (src.t_s === undefined || src.t_s.length !== src.power_w.length)
      throw new FacilityInputError(`${field}.t_s`, `needs one time per power reading (${src.t_s?.length ?? 0} times, ${src.power_w.length} readings)`);
    const f = UNIT_FACTOR[src.units] / src.nodes;
    p = { t_s: src.t_s, power_w: src.power_w.map((w) => w * f + src.node_overhead_w) };
  } else throw new FacilityInputError(field, 'csv and run profiles are read by the engine before simulating');
  p = { ...p, ramp_s: src.ramp_s ?? p.ramp_s, tail_s: src.tail_s ?? p.tail_s };
  checkProfile(p, field, ratedW);
  return p;
}

function curvePoints(src: RatePower, field: string, ratedW: number, capW?: number): [number, number][] {
  const pts = src.builtin !== undefined ? builtinRateCurve(src.builtin, `${field}.builtin`, capW) : (src.points as [number, number][]);
  if (pts.length === 0) throw new FacilityInputError(`${field}.points`, 'the rate-power curve is empty');
  pts.forEach(([r, w], i) => {
    if (w < 0) throw new FacilityInputError(`${field}.points[${i}]`, `negative power ${w} W`);
    if (w > ratedW * 1.5) throw new FacilityInputError(`${field}.points[${i}]`, `${w} W per node is over 1.5x the rated ${ratedW} W: wrong units?`);
    if (i > 0 && r <= pts[i - 1]![0]) throw new FacilityInputError(`${field}.points[${i}]`, 'rates must increase');
  });
  return pts;
}

export function buildModel(sc: ScenarioInput): BuiltModel {
  const c = sc.config;
  const startMs = parseStart(c.start);
  const steps = Math.max(1, Math.round((c.horizon_days * 86400) / c.step_s));
  const hours = Math.ceil((steps * c.step_s) / 3600) + 1;
  const cap = c.fleet_cap_w;
  if (c.mode === 'training') {
    const hourly = hourlyShape(startMs, hours, c.arrivals.hour_of_day, c.arrivals.weekday, c.arrivals.month);
    const types: ResolvedJobType[] = c.jobs.map((j, i) => {
      const field = `jobs[${i}]`;
      checkChoice(j.nodes, `${field}.nodes`, true);
      checkChoice(j.duration_h, `${field}.duration_h`, false);
      let src = j.profile;
      let stretch = 1;
      let capArg: number | undefined;
      if (cap !== undefined) {
        const at = j.at_caps.find((a) => a.cap_w === cap);
        if (at) {
          stretch = 1 / at.throughput;
          if (at.profile) src = at.profile;
          else if (j.profile.builtin !== undefined) capArg = cap;
          else throw new FacilityInputError(`${field}.at_caps`, `the entry for ${cap} W needs a profile measured at that cap`);
        } else if (j.profile.builtin !== undefined) {
          capArg = cap;
          stretch = 1 / throughputAtCap(cap);
        } else throw new FacilityInputError(`${field}.at_caps`, `"${j.name}" has no profile measured at fleet_cap_w ${cap} W (add at_caps: [{cap_w: ${cap}, throughput, profile}])`);
      }
      const profile = toSteps(nodeProfile(src, `${field}.profile`, c.rated_w, capArg), c.step_s);
      return { name: j.name, share: j.share, nodes: sampler(j.nodes), durationH: sampler(j.duration_h), profile, stretch };
    });
    const m: TrainingModel = { nodes: c.nodes, idleW: c.idle_w, stepS: c.step_s, steps, allocation: c.allocation, hourly, types };
    if (!c.grid) return { kind: 'training', m };
    const gridTypes = types.map((t, i) => {
      const j = c.jobs[i]!;
      const points = capPoints(c, j, i, t);
      return { name: t.name, busyW: t.profile.mean, meanNodes: t.nodes.mean, flexible: j.flexible ?? 0, points, segments: capHull(points) };
    });
    return { kind: 'training', m, grid: buildGrid(c, gridTypes, startMs, steps) };
  }
  const services: ResolvedService[] = c.services.map((s, i) => {
    const field = `services[${i}]`;
    const at = cap !== undefined ? s.at_caps.find((a) => a.cap_w === cap) : undefined;
    let power = s.power;
    if (s.rate_max === undefined) throw new FacilityInputError(`${field}.rate_max`, 'rate_max_from is read by the engine before simulating');
    let rateMax = s.rate_max;
    let capArg: number | undefined;
    if (at) {
      power = at.power;
      rateMax = at.rate_max;
    } else if (cap !== undefined) {
      if (s.power.builtin === undefined) throw new FacilityInputError(`${field}.at_caps`, `"${s.name}" has no curve measured at fleet_cap_w ${cap} W`);
      capArg = cap;
      rateMax = s.rate_max * throughputAtCap(cap);
    }
    const dayMax = Math.max(...s.day);
    const weekMax = Math.max(...s.week);
    const hourly = new Float64Array(hours);
    for (let h = 0; h < hours; h++) {
      const d = new Date(startMs + h * 3_600_000);
      hourly[h] = (s.day[d.getUTCHours()]! / dayMax) * (s.week[(d.getUTCDay() + 6) % 7]! / weekMax);
    }
    return {
      name: s.name,
      peakRps: s.peak_rps,
      hourly,
      noiseSigma: s.noise_sigma,
      rateMax,
      nodesPerInstance: s.nodes_per_instance,
      maxInstances: s.max_instances,
      curve: rateCurve(curvePoints(power, `${field}.power`, c.rated_w, capArg)),
    };
  });
  const m: InferenceModel = { nodes: c.nodes, idleW: c.idle_w, stepS: c.step_s, steps, services };
  if (!c.grid) return { kind: 'inference', m };
  // Services respond with fewer instances (no cap ladder, nothing paused): an instance's node at rate_max is its busy power.
  const gridTypes = services.map((sv) => ({ name: sv.name, busyW: powerAt(sv.curve, sv.rateMax), meanNodes: sv.nodesPerInstance, flexible: 0, points: [], segments: [] }));
  return { kind: 'inference', m, grid: buildGrid(c, gridTypes, startMs, steps) };
}

/**
 * A type's cap ladder from its measured at_caps entries (built-in profiles: the grid's caps_w, clipped as the
 * fleet cap is): each cap's mean node power relative to the type's profile as run, and its throughput relative too.
 */
function capPoints(c: FacilityConfig, j: FacilityConfig['jobs'][number], i: number, t: ResolvedJobType): CapPoint[] {
  const field = `jobs[${i}].at_caps`;
  const fleet = c.fleet_cap_w ?? Infinity;
  const base = t.profile.mean;
  const entries: { capW: number; throughput: number; src: ProfileSource; capArg?: number }[] = j.at_caps
    .filter((a) => a.cap_w < fleet)
    .map((a) => {
      if (!a.profile && j.profile.builtin === undefined) throw new FacilityInputError(field, `the entry for ${a.cap_w} W needs a profile measured at that cap`);
      return { capW: a.cap_w, throughput: a.throughput, src: a.profile ?? j.profile, capArg: a.profile ? undefined : a.cap_w };
    });
  if (j.profile.builtin !== undefined)
    for (const cap of c.grid!.caps_w) if (cap < fleet && !entries.some((e) => e.capW === cap)) entries.push({ capW: cap, throughput: throughputAtCap(cap), src: j.profile, capArg: cap });
  return entries.map((e) => ({
    capW: e.capW,
    power: toSteps(nodeProfile(e.src, `${field}.profile`, c.rated_w, e.capArg), c.step_s).mean / base,
    throughput: e.throughput * t.stretch,
  }));
}

function eventStep(start: string | number, startMs: number, stepS: number, field: string): number {
  if (typeof start === 'number') return Math.round((start * 3600) / stepS);
  const ms = Date.parse(start);
  if (!Number.isFinite(ms)) throw new FacilityInputError(field, `not a date: "${start}" (an ISO date, or hours from the start)`);
  return Math.round((ms - startMs) / 1000 / stepS);
}

function buildGrid(c: FacilityConfig, types: GridType[], startMs: number, steps: number): GridModel {
  const g = c.grid!;
  const stepS = c.step_s;
  const events = g.events.map((e, i) => {
    const field = `grid.events[${i}].start`;
    const request = eventStep(e.start, startMs, stepS, field);
    if (request < 0 || request >= steps) throw new FacilityInputError(field, `the event starts outside the simulated ${c.horizon_days} days`);
    const due = request + Math.round((e.notice_min * 60) / stepS);
    const end = due + Math.max(1, Math.round((e.duration_h * 3600) / stepS));
    return { name: e.name ?? `event ${i + 1}`, request, due, end, reduceW: e.reduce_mw !== undefined ? e.reduce_mw * 1e6 : undefined, reduceFrac: e.reduce_pct !== undefined ? e.reduce_pct / 100 : undefined, limitW: e.limit_mw !== undefined ? e.limit_mw * 1e6 : undefined };
  });
  return {
    types,
    events,
    limitW: g.limit_mw !== undefined ? g.limit_mw * 1e6 : null,
    rampWPerMin: g.max_ramp_mw_per_min !== undefined ? g.max_ramp_mw_per_min * 1e6 : null,
    baselineSteps: Math.max(1, Math.round((g.baseline_h * 3600) / stepS)),
    caps: g.caps,
    defer: g.defer,
    battery: g.battery
      ? { w: g.battery.mw * 1e6, wh: g.battery.mwh * 1e6, efficiency: g.battery.efficiency, socStart: g.battery.soc_start, standby: g.battery.standby_soc ?? (g.smooth_ramps.includes('battery') ? 0.5 : 1) }
      : null,
    generatorW: g.generator ? g.generator.mw * 1e6 : 0,
    smoothRamps: g.smooth_ramps.length > 0 ? { battery: g.smooth_ramps.includes('battery'), caps: g.smooth_ramps.includes('caps') } : null,
  };
}

function checkChoice(d: FacilityConfig['jobs'][number]['nodes'], field: string, whole: boolean): void {
  if (d.dist === 'choice') {
    if (d.weights && d.weights.length !== d.values.length) throw new FacilityInputError(`${field}.weights`, `${d.weights.length} weights for ${d.values.length} values`);
    if (d.weights && !d.weights.some((w) => w > 0)) throw new FacilityInputError(`${field}.weights`, 'at least one weight must be > 0');
    if (whole && d.values.some((v) => !Number.isInteger(v))) throw new FacilityInputError(`${field}.values`, 'node counts must be whole numbers');
  }
  if (d.dist === 'uniform' && d.max < d.min) throw new FacilityInputError(`${field}.max`, `max ${d.max} is below min ${d.min}`);
}

/** Per-step outdoor temperature, price and carbon intensity for a scenario (null where constant or unused). */
export function stepSeries(sc: ScenarioInput, steps: number): { temperature: Float64Array | null; price: Float64Array | null; carbon: Float64Array | null } {
  const c = sc.config;
  const startMs = parseStart(c.start);
  const per = (s: YearSeries | undefined) => (s ? perStep(s, startMs, c.step_s, steps) : null);
  const needT = c.overheads.cooling !== undefined && c.overheads.cooling.per_degc > 0;
  return {
    temperature: needT ? (per(sc.series.temperature) ?? climate(c.overheads.temperature, startMs, c.step_s, steps)) : null,
    price: per(sc.series.price),
    carbon: per(sc.series.carbon),
  };
}
