// Energy over a window, per device, by sensor kind: energy counter > counter-derived power > instant power >
// 1 s average power (lag-corrected). Node energy = GPUs + measured CPU, else GPUs + overhead * seconds.
import type { SensorKind } from '../../shared/device';
import type { AnalysisFlag, EnergyResult, NodeEnergy, TimeWindow } from '../../shared/analysis';
import { AVERAGE_ALIGN_S, AVERAGE_WINDOW_S, boxcarEnergy, DENSE_AVERAGE_ENERGY_ALIGN_S, edgeBoundJ } from './average-power';
import { integrateLinear, isReading, largestGap, medianInterval, sortPoints, windowValid, type Point, type PowerSample } from './series';

/** How a device's energy was obtained, in the words results carry (`method`); the uncertainty bound keys on them. */
export const ENERGY_METHOD = {
  counter: 'energy-counter delta',
  counterDerived: 'counter-derived power, step-integrated',
  instant: 'instant power, trapezoid',
  boxcar: '1 s average, boxcar tiles',
  /** Followed by the shift: "1 s average, shifted 0.5 s". */
  shifted: '1 s average, shifted',
} as const;

export interface EnergyOptions {
  device_id?: string | null;
  /** Sensor preference, best first. Default counter, instant, average. */
  prefer?: SensorKind[];
  /** Coverage of the window by the power series below which it is flagged low-coverage. Default 0.9. */
  min_coverage?: number;
  /**
   * How the 1 s average power is integrated: 'boxcar' (default) uses each reading as the exact mean of the second
   * before it (see average-power.ts); 'shift' integrates readings moved back by average_lag_s (the older method).
   */
  average_method?: 'boxcar' | 'shift';
  /** For average_method 'shift': its reading at t describes t - lag. Default 0.5 s. */
  average_lag_s?: number;
  /** For average_method 'boxcar': the covered second ends at t + align. Default AVERAGE_ALIGN_S (0.07 s) for readings about once a second, DENSE_AVERAGE_ENERGY_ALIGN_S (-0.05 s) for denser ones; 0 for an ideal sensor. */
  average_align_s?: number;
  /** Windows shorter than this get a warning when only the 1 s average is available. Default 10 s. */
  short_window_s?: number;
  /** How far readings may stop short of a window edge and still count as covering it. Default max(1 s, 2.5 sample intervals). */
  edge_tolerance_s?: number;
  /** Counter wrap value (mJ); null: a decreasing counter is treated as a reset. */
  counter_wrap_mj?: number | null;
  /** A counter reading stamped t holds the energy at t - counter_lag_s (another tool's NVML log: see COUNTER_READ_LAG_S). Default 0. */
  counter_lag_s?: number;
  /** Relative disagreement between counter and instant energy that gets a warning. Default 0.05. */
  cross_check_tolerance?: number;
}

interface MethodOk {
  ok: true;
  energy_j: number;
  /** What the readings leave open at the window's edges, J (counter intervals and dense averages cut by an edge). */
  edge_j?: number;
  /** Counter method only: the energy came from counter-derived power, not counter readings. */
  derived?: boolean;
  samples: number;
  warnings: string[];
  flags: AnalysisFlag[];
}
interface MethodFail {
  ok: false;
  why: string;
}
type MethodResult = MethodOk | MethodFail;

const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : String(x));

function tolerance(points: readonly Point[], opts: EnergyOptions): number {
  if (opts.edge_tolerance_s !== undefined) return opts.edge_tolerance_s;
  const dt = medianInterval(points);
  return Math.max(1, Number.isFinite(dt) ? 2.5 * dt : 0);
}

/** Integrates a piecewise-linear power series over the window; readings are held for up to `tol` past the data. */
function integratePower(points: Point[], w: TimeWindow, tol: number, label: string): MethodResult {
  if (points.length === 0) return { ok: false, why: `no ${label} readings` };
  const first = points[0]!.t;
  const last = points[points.length - 1]!.t;
  if (last < w.start - tol || first > w.end + tol) return { ok: false, why: `no ${label} readings in or near the window` };
  const duration = w.end - w.start;
  const covered = Math.min(w.end, last + tol) - Math.max(w.start, first - tol);
  const coverage = covered / duration;
  if (coverage < 0.5) return { ok: false, why: `${label} readings cover only ${fmt(coverage * 100, 0)} % of the window` };
  const warnings: string[] = [];
  const flags: AnalysisFlag[] = [];
  if (coverage < 0.999) {
    warnings.push(`${label} readings cover ${fmt(coverage * 100, 1)} % of the window; the rest is held at the nearest reading`);
    flags.push('power-gap');
  }
  const dt = medianInterval(points);
  const gap = largestGap(points, Math.max(w.start, first), Math.min(w.end, last));
  if (Number.isFinite(dt) && gap > Math.max(2, 5 * dt)) {
    warnings.push(`gap of ${fmt(gap, 1)} s between ${label} readings bridged by linear interpolation`);
    if (!flags.includes('power-gap')) flags.push('power-gap');
  }
  const used = points.filter((p) => p.t >= w.start && p.t <= w.end).length;
  return { ok: true, energy_j: integrateLinear(points, w.start, w.end), samples: used, warnings, flags };
}

/** The 1 s average integrated as exact one-second means (average-power.ts). */
function integrateBoxcar(points: Point[], w: TimeWindow, tol: number, align: number): MethodResult {
  if (points.length === 0) return { ok: false, why: 'no 1 s average power readings' };
  const r = boxcarEnergy(points, w, AVERAGE_WINDOW_S, align);
  if (!r) return { ok: false, why: 'no 1 s average power readings in or near the window' };
  const reach = Math.min(w.end, points[points.length - 1]!.t + tol) - Math.max(w.start, points[0]!.t - AVERAGE_WINDOW_S - tol);
  if (reach / (w.end - w.start) < 0.5) return { ok: false, why: `1 s average power readings cover only ${fmt((reach / (w.end - w.start)) * 100, 0)} % of the window` };
  const warnings: string[] = [];
  const flags: AnalysisFlag[] = [];
  if (r.coverage < 0.999) {
    warnings.push(`1 s average power readings cover ${fmt(r.coverage * 100, 1)} % of the window; the rest is held at the nearest reading`);
    flags.push('power-gap');
  }
  const used = points.filter((p) => p.t >= w.start && p.t <= w.end).length;
  return { ok: true, energy_j: r.energy_j, samples: used, warnings, flags, ...(r.edge_j === undefined ? {} : { edge_j: r.edge_j }) };
}

/**
 * Counter-derived power: each reading is the mean power since the previous one, so it is integrated as a step
 * function over (t_prev, t]; the first reading covers one median interval before it, the last is held after it.
 */
function integrateStep(points: Point[], w: TimeWindow, tol: number): MethodResult {
  if (points.length === 0) return { ok: false, why: 'no counter-derived power readings' };
  const dt = medianInterval(points);
  const firstStart = points[0]!.t - (Number.isFinite(dt) ? dt : 0);
  const last = points[points.length - 1]!.t;
  if (firstStart > w.start + tol || last < w.end - tol) {
    const covered = Math.max(0, Math.min(w.end, last + tol) - Math.max(w.start, firstStart - tol));
    if (covered / (w.end - w.start) < 0.5) return { ok: false, why: 'counter-derived power readings do not cover the window' };
  }
  let e = 0;
  let prev = firstStart;
  let used = 0;
  for (const p of points) {
    const a = Math.max(prev, w.start);
    const b = Math.min(p.t, w.end);
    if (b > a) {
      e += p.v * (b - a);
      used++;
    }
    prev = p.t;
  }
  if (w.end > last) e += points[points.length - 1]!.v * (w.end - Math.max(last, w.start));
  if (w.start < firstStart) e += points[0]!.v * (Math.min(firstStart, w.end) - w.start);
  return { ok: true, energy_j: e, samples: used, warnings: [], flags: [] };
}

/** Energy-counter delta over the window with linear interpolation at the edges, wrap and reset handling. */
function counterEnergy(readings: Point[], w: TimeWindow, opts: EnergyOptions, instant: Point[]): MethodResult {
  if (readings.length < 2) return { ok: false, why: readings.length === 0 ? 'no energy counter readings' : 'only one energy counter reading' };
  const tol = opts.edge_tolerance_s ?? Math.max(1, Number.isFinite(medianInterval(readings)) ? 2.5 * medianInterval(readings) : 0);
  const first = readings[0]!.t;
  const last = readings[readings.length - 1]!.t;
  if (first > w.start + tol || last < w.end - tol)
    return { ok: false, why: `energy counter readings span ${fmt(first, 3)}..${fmt(last, 3)}, not the window ${fmt(w.start, 3)}..${fmt(w.end, 3)}` };

  const warnings: string[] = [];
  const flags: AnalysisFlag[] = [];
  // Cumulative energy (J) at each reading, with wraps unwrapped and resets bridged.
  const seg: (number | null)[] = [];
  let wraps = 0;
  let resets = 0;
  for (let i = 1; i < readings.length; i++) {
    let d = readings[i]!.v - readings[i - 1]!.v;
    if (d < 0) {
      const wrap = opts.counter_wrap_mj;
      if (wrap && d + wrap >= 0) {
        d += wrap;
        wraps++;
      } else {
        resets++;
        seg.push(null);
        continue;
      }
    }
    seg.push(d / 1000);
  }
  if (wraps) warnings.push(`energy counter wrapped ${wraps} time(s); unwrapped at ${opts.counter_wrap_mj} mJ`);
  if (resets) {
    // Power over a reset segment: instant power there if we have it, else the mean power of the good segments.
    let goodE = 0;
    let goodT = 0;
    seg.forEach((s, i) => {
      if (s !== null) {
        goodE += s;
        goodT += readings[i + 1]!.t - readings[i]!.t;
      }
    });
    const fallbackW = goodT > 0 ? goodE / goodT : NaN;
    for (let i = 0; i < seg.length; i++) {
      if (seg[i] !== null) continue;
      const a = readings[i]!.t;
      const b = readings[i + 1]!.t;
      const covered = instant.some((p) => p.t >= a && p.t <= b);
      if (covered) seg[i] = integrateLinear(instant, a, b);
      else if (Number.isFinite(fallbackW)) seg[i] = fallbackW * (b - a);
      else return { ok: false, why: 'energy counter only decreases (reset) and no power readings to bridge it' };
    }
    warnings.push(`energy counter reset ${resets} time(s); bridged with ${instant.length ? 'instant power' : 'the mean counter power'}`);
    flags.push('counter-reset');
  }
  const cum: Point[] = [{ t: readings[0]!.t, v: 0 }];
  for (let i = 1; i < readings.length; i++) cum.push({ t: readings[i]!.t, v: cum[i - 1]!.v + (seg[i - 1] as number) });

  let edgeBound = 0;
  const at = (x: number, edge: 'start' | 'end'): number => {
    if (x >= first && x <= last) {
      let lo = 0;
      while (lo < cum.length - 2 && cum[lo + 1]!.t < x) lo++;
      const a = cum[lo]!;
      const b = cum[lo + 1]!;
      if (b.t === a.t) return a.v;
      const e = edgeEnergy(cum, lo, x);
      edgeBound += e.bound;
      return a.v + e.j;
    }
    // Just outside the readings (within tolerance): extrapolate with instant power, else the edge segment's power.
    const [ref, nb] = x < first ? [cum[0]!, cum[1]!] : [cum[cum.length - 1]!, cum[cum.length - 2]!];
    const span = Math.abs(x - ref.t);
    if (span <= (opts.counter_lag_s ?? 0) + 1e-9) {
      // Inside the log's own stamps, only its read lag away from a reading: the edge interval's power over the lag.
      const k = x < first ? 0 : cum.length - 2;
      const edgeW = intervalPower(cum, k)!;
      const nextW = intervalPower(cum, x < first ? 1 : k - 1) ?? edgeW;
      edgeBound += edgeBoundJ(Math.abs(edgeW - nextW));
      return x < first ? ref.v - edgeW * span : ref.v + edgeW * span;
    }
    const near = instant.filter((p) => p.t >= Math.min(x, ref.t) - 0.5 && p.t <= Math.max(x, ref.t) + 0.5);
    const pw = near.length ? near.reduce((s, p) => s + p.v, 0) / near.length : (ref.v - nb.v) / (ref.t - nb.t);
    warnings.push(`energy counter extrapolated ${fmt(span, 2)} s at the window ${edge}`);
    if (!flags.includes('counter-extrapolated')) flags.push('counter-extrapolated');
    return x < first ? ref.v - pw * span : ref.v + pw * span;
  };
  const energy = at(w.end, 'end') - at(w.start, 'start');
  // Readings used: those inside the window plus the bracketing one on each side.
  let lo = 0;
  while (lo < readings.length - 1 && readings[lo + 1]!.t <= w.start) lo++;
  let hi = readings.length - 1;
  while (hi > 0 && readings[hi - 1]!.t >= w.end) hi--;
  return { ok: true, energy_j: energy, samples: hi - lo + 1, warnings, flags, edge_j: edgeBound };
}

/** Mean power of counter interval k, (cum[k].t, cum[k + 1].t]; null outside the readings. */
function intervalPower(cum: readonly Point[], k: number): number | null {
  const a = cum[k];
  const b = cum[k + 1];
  return a && b && b.t > a.t ? (b.v - a.v) / (b.t - a.t) : null;
}

/**
 * Energy from counter reading k to x inside interval k, and a bound on its error. Linear interpolation spreads the
 * interval's energy evenly, which on a load -> idle step inside it is off by up to |dP| dt / 4. Where the interval's
 * mean power lies between its neighbours' there is one step inside it, and its place follows from the interval's
 * energy: P_left (s - t0) + P_right (t1 - s) = E. The bound is what the neighbours' own variation leaves open.
 */
function edgeEnergy(cum: readonly Point[], k: number, x: number): { j: number; bound: number } {
  const t0 = cum[k]!.t;
  const dt = cum[k + 1]!.t - t0;
  const pm = intervalPower(cum, k)!;
  const pl = intervalPower(cum, k - 1);
  const pr = intervalPower(cum, k + 1);
  const linear = pm * (x - t0);
  if (pl === null || pr === null) return { j: linear, bound: 0 };
  // The counter itself is up to one update stale (NVML_UPDATE_S): the step across the edge times half of that.
  const stale = edgeBoundJ(Math.max(pl, pm, pr) - Math.min(pl, pm, pr));
  if (!((pl - pm) * (pm - pr) > 0)) return { j: linear, bound: ((Math.max(pl, pm, pr) - Math.min(pl, pm, pr)) * dt) / 4 + stale };
  const s = t0 + ((pm - pr) / (pl - pr)) * dt;
  const ppl = intervalPower(cum, k - 2) ?? pl;
  const prr = intervalPower(cum, k + 2) ?? pr;
  return { j: pl * (Math.min(x, s) - t0) + pr * Math.max(0, x - s), bound: (Math.max(Math.abs(pl - ppl), Math.abs(pr - prr)) * dt) / 2 + stale };
}

function emptyResult(device_id: string | null, duration: number, reason: string, flags: AnalysisFlag[], warnings: string[] = []): EnergyResult {
  return { device_id, energy_j: null, mean_w: null, samples: 0, sensor: null, method: null, duration_s: duration, warnings, flags, reason, coverage: null };
}

/**
 * Share of [window.start, window.end] covered by a power series: a gap between consecutive readings counts up to 1.5
 * times the series' median spacing, and so do the edges. null with fewer than 2 readings in the window.
 */
function seriesCoverage(points: readonly Point[], window: TimeWindow): number | null {
  const inside = points.filter((p) => p.t >= window.start && p.t <= window.end);
  if (inside.length < 2) return null;
  const gaps = inside.slice(1).map((p, i) => p.t - inside[i]!.t).sort((a, b) => a - b);
  const reach = 1.5 * gaps[gaps.length >> 1]!;
  let covered = Math.min(inside[0]!.t - window.start, reach) + Math.min(window.end - inside[inside.length - 1]!.t, reach);
  for (let i = 1; i < inside.length; i++) covered += Math.min(inside[i]!.t - inside[i - 1]!.t, reach);
  return Math.min(1, covered / (window.end - window.start));
}

/**
 * Energy of one device over [window.start, window.end].
 * Readings that are NaN, infinite, negative or missing are dropped with a warning; an empty or inverted window,
 * or no usable readings, gives energy_j = null with the reason, never an exception.
 */
export function windowEnergy(samples: readonly PowerSample[], window: TimeWindow | null | undefined, opts: EnergyOptions = {}): EnergyResult {
  const device_id = opts.device_id ?? null;
  if (!window || !Number.isFinite(window.start) || !Number.isFinite(window.end))
    return emptyResult(device_id, 0, 'no measurement window', ['no-window']);
  const duration = window.end - window.start;
  if (!windowValid(window)) return emptyResult(device_id, Math.max(0, duration), `empty window (${fmt(duration, 3)} s long)`, ['empty-window']);

  const counter: Point[] = [];
  const derived: Point[] = [];
  const instant: Point[] = [];
  const average: Point[] = [];
  const boxcar = (opts.average_method ?? 'boxcar') === 'boxcar';
  const lag = boxcar ? 0 : (opts.average_lag_s ?? 0.5);
  const counterLag = opts.counter_lag_s ?? 0;
  let bad = 0;
  const present = (v: unknown) => v !== null && v !== undefined;
  for (const s of samples) {
    if (!s || !Number.isFinite(s.t)) {
      bad++;
      continue;
    }
    let usable = false;
    let invalid = false;
    if (present(s.energy_mj)) {
      if (isReading(s.energy_mj)) {
        counter.push({ t: s.t - counterLag, v: s.energy_mj });
        usable = true;
      } else invalid = true;
    }
    if (isReading(s.power_w)) {
      const kind = s.power_kind ?? 'instant';
      if (kind === 'instant') instant.push({ t: s.t, v: s.power_w });
      else if (kind === 'average') average.push({ t: s.t - lag, v: s.power_w });
      else derived.push({ t: s.t, v: s.power_w });
      usable = true;
    } else if (present(s.power_w)) invalid = true;
    if (isReading(s.power_avg_w)) {
      average.push({ t: s.t - lag, v: s.power_avg_w });
      usable = true;
    } else if (present(s.power_avg_w)) invalid = true;
    if (invalid || !usable) bad++;
  }
  const warnings: string[] = [];
  const flags: AnalysisFlag[] = [];
  if (bad > 0) {
    warnings.push(`dropped ${bad} reading(s) that were NaN, negative or missing`);
    flags.push('bad-readings');
  }
  // Two counter readings at one time (an edge reading beside a sampler row carrying a counter value): keep the
  // fresh one. The counter only grows, so the smaller value at the same instant is the stale read.
  const sortedCounter = [...counter].sort((a, b) => a.t - b.t || b.v - a.v).filter((p, i, arr) => i === 0 || p.t !== arr[i - 1]!.t);
  const inst = sortPoints(instant);
  const avg = sortPoints(average);
  // Dense 1 s averages come from other tools' logs (nvidia-smi -lms 100), stamped on their own time base.
  const dense = medianInterval(avg) <= AVERAGE_WINDOW_S / 4;
  const align = opts.average_align_s ?? (dense ? DENSE_AVERAGE_ENERGY_ALIGN_S : AVERAGE_ALIGN_S);
  const der = sortPoints(derived);

  const prefer = opts.prefer ?? ['counter', 'instant', 'average'];
  const skipped: string[] = [];
  const fallback: string[] = [];
  for (const kind of prefer) {
    let r: MethodResult;
    if (kind === 'counter') {
      r = counterEnergy(sortedCounter, window, opts, inst);
      if (!r.ok && der.length) {
        const d = integrateStep(der, window, tolerance(der, opts));
        if (d.ok) r = { ...d, derived: true };
      }
    } else if (kind === 'instant') r = integratePower(inst, window, tolerance(inst, opts), 'instant power');
    else r = boxcar ? integrateBoxcar(avg, window, tolerance(avg, opts), align) : integratePower(avg, window, tolerance(avg, opts), '1 s average power');
    if (!r.ok) {
      skipped.push(`${kind}: ${r.why}`);
      const had = kind === 'counter' ? sortedCounter.length + der.length : kind === 'instant' ? inst.length : avg.length;
      if (had > 0) fallback.push(`sensor fallback — ${kind}: ${r.why}`);
      continue;
    }
    const w = [...warnings, ...fallback];
    const f = [...flags];
    w.push(...r.warnings);
    for (const fl of r.flags) if (!f.includes(fl)) f.push(fl);
    if (kind === 'average') {
      w.push(
        boxcar
          ? `energy from the 1 s average power (no counter or instant readings): each reading taken as the mean of the second before it, aligned ${fmt(align, 2)} s later to the counter's time base`
          : `energy from the 1 s average power (no counter or instant readings); readings shifted by ${lag} s to correct the averaging lag`,
      );
      f.push('average-sensor');
      if (duration < (opts.short_window_s ?? 10)) {
        w.push(`window of ${fmt(duration, 1)} s is short relative to the 1 s averaging: expect errors of several percent`);
        f.push('short-window');
      }
    }
    if (kind === 'counter' && inst.length >= 2) {
      const check = integratePower(inst, window, tolerance(inst, opts), 'instant power');
      const tolRel = opts.cross_check_tolerance ?? 0.05;
      if (check.ok && r.energy_j > 0 && Math.abs(check.energy_j - r.energy_j) / r.energy_j > tolRel) {
        w.push(`energy counter and instant power disagree by ${fmt(((check.energy_j - r.energy_j) / r.energy_j) * 100, 1)} % (counter used)`);
        f.push('sensor-disagreement');
      }
    }
    const coverage = seriesCoverage(inst.length >= 2 ? inst : avg, window);
    if (coverage !== null && coverage < (opts.min_coverage ?? 0.9)) {
      w.push(`the power series covers ${fmt(coverage * 100, 0)} % of the window (readings missing or late)`);
      f.push('low-coverage');
    }
    const method = kind === 'counter' ? (r.derived ? ENERGY_METHOD.counterDerived : ENERGY_METHOD.counter) : kind === 'instant' ? ENERGY_METHOD.instant : boxcar ? ENERGY_METHOD.boxcar : `${ENERGY_METHOD.shifted} ${lag} s`;
    const edge = r.edge_j === undefined ? {} : { edge_uncertainty_j: r.edge_j };
    return { device_id, energy_j: r.energy_j, mean_w: r.energy_j / duration, samples: r.samples, sensor: kind, method, duration_s: duration, warnings: w, flags: f, reason: null, coverage, ...edge };
  }
  const reason = samples.length === 0 ? 'no samples' : `no usable sensor (${skipped.join('; ')})`;
  return emptyResult(device_id, duration, reason, [...flags, 'missing-energy'], warnings);
}

/**
 * Node energy over a window of `duration_s`: the GPUs' energy plus measured CPU energy when every CPU series gave
 * one (and useMeasuredCpu), else plus overhead_w * duration_s. Missing GPU energy gives energy_j = null.
 */
export function nodeEnergy(gpus: readonly EnergyResult[], cpu: readonly EnergyResult[], overhead_w: number, duration_s: number, useMeasuredCpu = true): NodeEnergy {
  const warnings: string[] = [];
  const gpuMissing = gpus.length === 0 || gpus.some((g) => g.energy_j === null);
  const gpu_j = gpuMissing ? null : gpus.reduce((s, g) => s + (g.energy_j as number), 0);
  if (gpus.length === 0) warnings.push('no GPU power series');
  else if (gpuMissing) warnings.push('GPU energy missing for at least one device');
  let cpu_j: number | null = null;
  let source: NodeEnergy['source'] = 'overhead';
  if (useMeasuredCpu && cpu.length > 0) {
    if (cpu.every((c) => c.energy_j !== null)) {
      cpu_j = cpu.reduce((s, c) => s + (c.energy_j as number), 0);
      source = 'measured-cpu';
    } else warnings.push(`measured CPU energy incomplete; using the ${overhead_w} W node overhead instead`);
  }
  const overhead_j = source === 'overhead' ? overhead_w * duration_s : null;
  const energy_j = gpu_j === null ? null : gpu_j + (cpu_j ?? 0) + (overhead_j ?? 0);
  return { energy_j, gpu_j, cpu_j, overhead_j, source, warnings };
}
