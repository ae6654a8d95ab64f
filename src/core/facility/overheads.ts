import type { Overheads } from '../../shared/facility';

/** A time series given by timestamps (ms) and values, read as "repeats every year" (hourly prices, temperatures). */
export interface YearSeries {
  t_ms: number[];
  value: number[];
}

const YEAR_S = 365 * 86400;

function secondOfYear(ms: number): number {
  const d = new Date(ms);
  return (ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / 1000;
}

/** A year-looped series as a step function: its readings' seconds of the year, ascending, and their values. */
function yearSteps(series: YearSeries): { sec: Float64Array; val: Float64Array } {
  const pts = series.t_ms.map((t, i) => ({ s: secondOfYear(t), v: series.value[i]! })).sort((a, b) => a.s - b.s);
  return { sec: Float64Array.from(pts.map((p) => p.s)), val: Float64Array.from(pts.map((p) => p.v)) };
}

/** The reading in force at second-of-year `soy` (sample-and-hold; before the first reading, the year's last). */
function stepAt(sec: Float64Array, soy: number): number {
  if (soy < sec[0]!) return sec.length - 1;
  let lo = 0;
  let hi = sec.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sec[mid]! <= soy) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The series' value at every step (sample-and-hold over the year, wrapping from the last reading to the first). */
export function perStep(series: YearSeries, startMs: number, stepS: number, steps: number): Float64Array {
  const { sec, val } = yearSteps(series);
  const out = new Float64Array(steps);
  for (let k = 0; k < steps; k++) out[k] = val[stepAt(sec, secondOfYear(startMs + k * stepS * 1000) % YEAR_S)]!;
  return out;
}

/**
 * The series' time-weighted mean over [startMs, endMs] (exact for the step function perStep samples): what a
 * constant power over that interval pays on average. An empty interval gives the value in force at its start.
 */
export function windowMean(series: YearSeries, startMs: number, endMs: number): number {
  const { sec, val } = yearSteps(series);
  if (!(endMs > startMs)) return val[stepAt(sec, secondOfYear(startMs) % YEAR_S)]!;
  let acc = 0;
  for (let t = startMs; t < endMs; ) {
    const soy = secondOfYear(t) % YEAR_S;
    const i = stepAt(sec, soy);
    // The value holds until the next reading, or the year's wrap (the 365-day one of perStep, or the calendar's).
    const nextSoy = soy < sec[0]! ? sec[0]! : i + 1 < sec.length ? sec[i + 1]! : YEAR_S;
    const yearEnd = Date.UTC(new Date(t).getUTCFullYear() + 1, 0, 1);
    const until = Math.min(endMs, t + (nextSoy - soy) * 1000, yearEnd);
    acc += val[i]! * (until - t);
    t = until > t ? until : endMs;
  }
  return acc / (endMs - startMs);
}

/** Sinusoidal climate: coldest mid-January and at 04:00, warmest mid-July and at 16:00 (UTC as local). */
export function climate(o: Overheads['temperature'], startMs: number, stepS: number, steps: number): Float64Array {
  const out = new Float64Array(steps);
  for (let k = 0; k < steps; k++) {
    const soy = secondOfYear(startMs + k * stepS * 1000);
    const day = soy / 86400;
    const hour = (soy % 86400) / 3600;
    out[k] = o.mean_c - o.annual_amplitude_c * Math.cos((2 * Math.PI * (day - 15)) / 365.25) - o.daily_amplitude_c * Math.cos((2 * Math.PI * (hour - 4)) / 24);
  }
  return out;
}

/**
 * Total facility power from IT power: IT x (1 + distribution loss) + cooling + fixed. Cooling is IT x (base +
 * per_degc x max(0, T - ref)) when a cooling model is given, else IT x (PUE - 1). Without overheads, `it` itself.
 */
export function totalPower(it: Float64Array, o: Overheads, temperature: Float64Array | null): Float64Array {
  // No overheads: the total is the IT series itself (callers reuse its statistics).
  if (!o.cooling && o.pue === 1 && o.distribution_loss === 0 && o.fixed_w === 0) return it;
  const out = new Float64Array(it.length);
  const c = o.cooling;
  for (let k = 0; k < it.length; k++) {
    const p = it[k]!;
    const cool = c ? p * (c.base_fraction + c.per_degc * Math.max(0, (temperature ? temperature[k]! : c.ref_c) - c.ref_c)) : p * (o.pue - 1);
    out[k] = p * (1 + o.distribution_loss) + cool + o.fixed_w;
  }
  return out;
}
