// Energy from a 1 s moving-average power sensor (nvidia-smi power.draw on Ampere and newer, NVML power usage).
//
// A reading A(x) at time x is the mean power over (x - T, x]. So the energy of any interval of length T ending
// at x is exactly T * A(x): tiling the window with T-long intervals ending at readings (or at grid points where
// readings are dense enough to interpolate) recovers the energy with no lag error. Only where a window edge cuts
// a tile does the distribution of energy inside that tile matter; there each tile is modelled as a single step
// from its left neighbour's level to its right neighbour's level, placed so the tile keeps its exact energy
// (a flat tile when its mean is not between the neighbours). Shifting readings by T/2 instead, as is common,
// leaves a T^2/8 * step error at every edge: +5 to +9 % on a 10 s idle window after a load on an H200.
//
// The second a reading covers is placed on the time base of the driver's other power readings (energy counter,
// instant power): on the H200 those trail the 1 s average by about 70 ms, so a reading stamped x is the mean over
// (x + align - T, x + align]. Left out, a window starting at a load -> idle step loses 70 ms of load power: -3 %.
import type { TimeWindow } from '../../shared/analysis';
import { medianInterval, type Point } from './series';

export const AVERAGE_WINDOW_S = 1;

/**
 * Alignment of the 1 s average to the counter and instant readings, s: what fitAverageAlign finds on the instant
 * channel of the real H200 capture (test/fixtures/h200-capture.csv), independently of its counter. Checked against
 * the counter in bench/results/average-power-h200.md (any value from 0.03 to 0.13 s keeps every window within 2 %).
 */
export const AVERAGE_ALIGN_S = 0.07;

interface Tile {
  lo: number;
  hi: number;
  mean: number;
}

export interface BoxcarResult {
  energy_j: number;
  /** Dense readings only: what the sensor's update period leaves open at the two edges, J (see edgeBoundJ). */
  edge_j?: number;
  /** Share of the window covered by tiles built from readings (the rest held at the nearest tile). */
  coverage: number;
  tiles: number;
}

/** Linear interpolation of sorted points at x; null outside them. */
function interp(points: readonly Point[], x: number, hint: { i: number }): number | null {
  if (x < points[0]!.t || x > points[points.length - 1]!.t) return null;
  let i = Math.min(hint.i, points.length - 2);
  while (i > 0 && points[i]!.t > x) i--;
  while (i < points.length - 2 && points[i + 1]!.t < x) i++;
  hint.i = i;
  const a = points[i]!;
  const b = points[i + 1] ?? a;
  return b.t === a.t ? a.v : a.v + ((b.v - a.v) * (x - a.t)) / (b.t - a.t);
}

/** Tiles covering [w.start - 2T, w.end + T] (neighbours included), from sorted readings. */
function buildTiles(points: readonly Point[], w: TimeWindow, T: number): Tile[] {
  const dt = medianInterval(points);
  const tiles: Tile[] = [];
  if (Number.isFinite(dt) && dt < 0.75 * T) {
    // Dense readings: a grid of T-long tiles aligned to the window's end, means interpolated between readings.
    const hint = { i: 0 };
    const first = Math.ceil((w.end + T - w.end) / T);
    const last = Math.ceil((w.end - (w.start - 2 * T)) / T);
    for (let j = last; j >= -first; j--) {
      const hi = w.end - j * T;
      const m = interp(points, hi, hint);
      if (m !== null) tiles.push({ lo: hi - T, hi, mean: m });
    }
    return tiles;
  }
  // Sparse readings (about one per T or fewer): each reading is its own tile; gaps between tiles are bridged by
  // a linear blend of the neighbouring means.
  for (const p of points) {
    if (p.t < w.start - 3 * T || p.t - T > w.end + 2 * T) continue;
    const prev = tiles[tiles.length - 1];
    let lo = p.t - T;
    // Readings a hair more than T apart (timer jitter) make contiguous tiles; real gaps get a bridge tile.
    if (prev && lo > prev.hi && lo - prev.hi < 0.1 * T) lo = prev.hi;
    if (prev && lo > prev.hi) tiles.push({ lo: prev.hi, hi: lo, mean: (prev.mean + p.v) / 2 });
    tiles.push({ lo: prev ? Math.max(lo, prev.hi) : lo, hi: p.t, mean: p.v });
  }
  return tiles;
}

/** Energy of tile k between x0 and x1 (inside it) under the step model. */
function tileEnergy(tiles: readonly Tile[], k: number, x0: number, x1: number): number {
  const t = tiles[k]!;
  const adjacent = (j: number) => tiles[j] && (tiles[j]!.hi === t.lo || tiles[j]!.lo === t.hi);
  const ml = adjacent(k - 1) ? tiles[k - 1]!.mean : t.mean;
  const mr = adjacent(k + 1) ? tiles[k + 1]!.mean : t.mean;
  if ((ml - t.mean) * (t.mean - mr) > 0) {
    const cut = t.lo + ((t.mean - mr) / (ml - mr)) * (t.hi - t.lo);
    return ml * Math.max(0, Math.min(x1, cut) - x0) + mr * Math.max(0, x1 - Math.max(x0, cut));
  }
  return t.mean * (x1 - x0);
}

/** A step found in the readings: where it is, and the average it gives from just before it to just after its ramp. */
interface FittedStep {
  s: number;
  at: (x: number) => number;
}

/** First index with t >= x in sorted points. */
function lowerBound(points: readonly Point[], x: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.t < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where the level before a step and the level after its ramp are read, s from the step (before) or ramp end (after). */
const LEVEL_FROM_S = 0.05;
const LEVEL_TO_S = 0.4;

/**
 * The steps in the readings over [lo, hi]. A T-second average of power is piecewise linear between kinks: flat,
 * then a straight ramp over exactly T after a step. Read off a straight line between the two readings around it, the
 * kink at a step is cut by up to slope x dt / 4 (14 W on an H200's load -> idle ramp read every 100 ms), and a window
 * edge on a step puts a chain point right there: 14 J per edge, always of the same sign, +1 to +2 % on an idle after a
 * load. And each reading on the ramp is 0-100 ms stale by its own amount (+-20 W at a 550 W/s ramp). So each step is
 * fitted to every reading of its ramp (stepFit) and the average near it read off that fit. A step is where the level
 * after the ramp differs most from the level before it, by far more than the readings' scatter there.
 */
function findSteps(all: readonly Point[], lo: number, hi: number, T: number): FittedStep[] {
  const points = all.slice(lowerBound(all, lo - 1), lowerBound(all, hi + T + 1));
  const cum = [0];
  const cum2 = [0];
  for (const p of points) {
    cum.push(cum[cum.length - 1]! + p.v);
    cum2.push(cum2[cum2.length - 1]! + p.v * p.v);
  }
  const level = (a: number, b: number) => {
    const i0 = lowerBound(points, a);
    const i1 = lowerBound(points, b);
    const n = i1 - i0;
    if (n < 2) return null;
    const mean = (cum[i1]! - cum[i0]!) / n;
    return { mean, sd: Math.sqrt(Math.max(0, (cum2[i1]! - cum2[i0]!) / n - mean * mean)) };
  };
  const jumps: { s: number; j: number }[] = [];
  for (let i = 0; i < points.length && points[i]!.t <= hi; i++) {
    const s = points[i]!.t;
    const before = level(s - LEVEL_TO_S, s - LEVEL_FROM_S);
    const after = level(s + T + LEVEL_FROM_S, s + T + LEVEL_TO_S);
    if (!before || !after) continue;
    const j = Math.abs(after.mean - before.mean);
    if (j > 10 * (before.sd + after.sd) + 1) jumps.push({ s, j });
  }
  const steps: FittedStep[] = [];
  jumps.forEach((c, k) => {
    for (let m = k - 1; m >= 0 && jumps[m]!.s > c.s - 0.3; m--) if (jumps[m]!.j > c.j) return;
    for (let m = k + 1; m < jumps.length && jumps[m]!.s < c.s + 0.3; m++) if (jumps[m]!.j >= c.j) return;
    const step = stepFit(points, c.s, T, level);
    if (step && !(steps.length && step.s < steps[steps.length - 1]!.s + T)) steps.push(step);
  });
  return steps;
}

/** The average at x: off a fitted step where x is on its ramp or right beside it, else between the two readings. */
function averageAt(points: readonly Point[], steps: readonly FittedStep[], T: number, x: number, hint: { i: number }): number | null {
  const v = interp(points, x, hint);
  if (v === null) return null;
  for (const st of steps) if (x > st.s - LEVEL_FROM_S && x < st.s + T + LEVEL_FROM_S) return st.at(x);
  return v;
}

/**
 * A single step near s seen through a T-second average: flat at the level before, a straight ramp over exactly T,
 * flat at the level after. Only the step time is free (levels from the readings just outside the ramp), so it is
 * fitted from every reading on the ramp. null where the readings do not look like one step (a load's own swings
 * larger than 5 % of the step): there the readings are interpolated.
 */
function stepFit(points: readonly Point[], s: number, T: number, level: (a: number, b: number) => { mean: number } | null): FittedStep | null {
  const before = level(s - LEVEL_TO_S, s - LEVEL_FROM_S);
  const after = level(s + T + LEVEL_FROM_S, s + T + LEVEL_TO_S);
  if (!before || !after) return null;
  const ramp = points.slice(lowerBound(points, s - 0.25), lowerBound(points, s + T + 0.25));
  const model = (at: number) => (x: number) => before.mean + (after.mean - before.mean) * Math.min(1, Math.max(0, (x - at) / T));
  let best: { at: number; sse: number } | null = null;
  for (let d = -100; d <= 100; d++) {
    const f = model(s + d / 1000);
    const sse = ramp.reduce((a, p) => a + (p.v - f(p.t)) ** 2, 0);
    if (!best || sse < best.sse) best = { at: s + d / 1000, sse };
  }
  if (!best || Math.sqrt(best.sse / ramp.length) > 0.05 * Math.abs(after.mean - before.mean)) return null;
  return { s: best.at, at: model(best.at) };
}

/**
 * Energy over [a, b] from readings of a T-second average read much faster than T (nvidia-smi power.draw at -lms
 * 100). With E the cumulative energy, A(x) = (E(x) - E(x - T)) / T, so E(x) = T * A(x) + E(x - T) for any x, and
 * E(b) - E(a) = T * (A(b) + A(b - T) + ...) - T * (A(a) + A(a - T) + ...) + E(x_a, x_b): two chains of readings
 * spaced T apart (interpolated between the dense readings), walked back (or forward) in step until they reach the
 * place where power is steadiest; only there is the energy of a sub-second interval [x_a, x_b] guessed (as its
 * reading's level). No edge tile is modelled at the window edges, where the steps are: what the power did inside the
 * second before an edge is in the readings' slope, and the chains read it. null where the readings do not reach.
 */
function chainEnergy(points: readonly Point[], w: TimeWindow, T: number, maxDepth: number): BoxcarResult | null {
  const hint = { i: 0 };
  const reach = (maxDepth + 2) * T;
  const steps = findSteps(points, w.start - reach, w.end + reach, T);
  const at = (x: number) => averageAt(points, steps, T, x, hint);
  const m = Math.floor((w.end - w.start) / T + 1e-9);
  const r = w.end - w.start - m * T;
  // A guess of E over (hi - len, hi] from the reading at hi: its error is at most len times the spread of the
  // readings over [hi - T, hi] (a flat stretch of readings over T means flat power over the 2T before hi).
  const guess = (hi: number, len: number): { e: number; err: number } | null => {
    const v = at(hi);
    if (v === null) return null;
    let lo = v;
    let up = v;
    for (let k = 1; k <= 10; k++) {
      const u = at(hi - (k * T) / 10);
      if (u === null) return null;
      lo = Math.min(lo, u);
      up = Math.max(up, u);
    }
    return { e: v * len, err: (up - lo) * len };
  };
  let best: { e: number; err: number; used: number } | null = null;
  const consider = (e: number, g: { e: number; err: number } | null, sign: number, used: number) => {
    if (!g) return;
    // A deeper chain wins only if it is clearly steadier (its sums carry more readings' noise).
    const err = g.err + 1e-3 * used;
    if (!best || err < best.err) best = { e: e + sign * g.e, err, used };
  };
  // Backward: chain from b of m + j readings, from a of j readings, residual E(a - jT, a - jT + r).
  let sumB = 0;
  for (let k = 0; k < m; k++) {
    const v = at(w.end - k * T);
    if (v === null) return null;
    sumB += v;
  }
  let sumA = 0;
  for (let j = 0; j <= maxDepth; j++) {
    if (j > 0) {
      const vb = at(w.end - (m + j - 1) * T);
      const va = at(w.start - (j - 1) * T);
      if (vb === null || va === null) break;
      sumB += vb;
      sumA += va;
    }
    consider(T * (sumB - sumA), guess(w.start - j * T + r, r), 1, m + 2 * j);
  }
  // Forward: chain from a of j' + m + 1 readings past it, from b of j', less the residual E(b + j'T, a + (j' + m + 1)T).
  let fA = 0;
  for (let k = 1; k <= m + 1; k++) {
    const v = at(w.start + k * T);
    if (v === null) {
      fA = NaN;
      break;
    }
    fA += v;
  }
  let fB = 0;
  for (let j = 0; j <= maxDepth && Number.isFinite(fA); j++) {
    if (j > 0) {
      const va = at(w.start + (m + 1 + j) * T);
      const vb = at(w.end + j * T);
      if (va === null || vb === null) break;
      fA += va;
      fB += vb;
    }
    consider(T * (fA - fB), guess(w.start + (m + 1 + j) * T, T - r), -1, m + 1 + 2 * j);
  }
  const found = best as { e: number; used: number } | null;
  if (!found) return null;
  // The level change the average shows across each edge, from just before it to just after its ramp.
  const jump = (x: number) => Math.abs((at(x + T + 0.15) ?? at(x + T) ?? 0) - (at(x - 0.15) ?? at(x) ?? 0));
  return { energy_j: found.e, coverage: 1, tiles: found.used, edge_j: edgeBoundJ(jump(w.start)) + edgeBoundJ(jump(w.end)) };
}

/**
 * On the H200 NVML's power and energy readings change every ~100 ms (two nvidia-smi logs read at different phases
 * hold the same values, first seen up to 0.1 s apart: bench/results/h200-signal-2026-12-03.md), so a reading is up
 * to that stale and a step at an edge can be placed no closer than that: half the period times the step, per edge.
 */
export const NVML_UPDATE_S = 0.1;
export const edgeBoundJ = (stepW: number) => (stepW * NVML_UPDATE_S) / 2;
/**
 * How old, on average, a reading of NVML's energy counter is when a logger reads it on a clock of its own (another
 * tool's log: WattAMeter): it holds the value of the last update, and the logger's phase against the ~100 ms updates
 * is arbitrary, so half an update. On the 2026-12-04 H200 capture (bench/results/h200-signal-edges-2026-12-04.md) a
 * steady 100 ms logger read every value 57-61 ms after its update (median 59.6 ms over 2,856 readings).
 */
export const COUNTER_READ_LAG_S = NVML_UPDATE_S / 2;

/**
 * Alignment for 1 s averages read ten times a second or more by another tool (nvidia-smi power.draw at -lms 100):
 * what fitAverageAlign finds between nvidia-smi's own instant and average columns on the H200
 * (test/fixtures/h200-signal/smi-inst.csv), from the instant channel alone like AVERAGE_ALIGN_S. nvidia-smi stamps
 * a row after reading it; CapLab's sampler stamps before.
 */
export const DENSE_AVERAGE_ALIGN_S = -0.01;

/**
 * Alignment of those dense 1 s averages to the energy counter's time base, for energy: each reading holds the value of
 * NVML's last ~100 ms update, so it is on average half an update old (the same staleness as COUNTER_READ_LAG_S). The
 * instant channel is read the same way, so DENSE_AVERAGE_ALIGN_S, fitted against it, cancels that age. Least squares
 * of the seed query's power.draw against the 1 s mean of every counter update (test/fixtures/h200-signal-edges/
 * exact.log, 2026-12-04) gives -0.05 s too; every phase of that capture stays within 2 % from -0.01 to -0.07 s.
 */
export const DENSE_AVERAGE_ENERGY_ALIGN_S = -NVML_UPDATE_S / 2;

/**
 * How late a step shows in a logged 1 s average, s: the readings ramp from one level to the next over (s - align,
 * s - align + T], so a step fitted to them falls half a window, less the alignment, after the true one. For the
 * logs phases are found on (imports: other tools' dense logs), with DENSE_AVERAGE_ALIGN_S.
 */
export const AVERAGE_STEP_LAG_S = AVERAGE_WINDOW_S / 2 - DENSE_AVERAGE_ALIGN_S;

/** How far the chains of chainEnergy may walk from the window, s. */
export const CHAIN_REACH_S = 60;

/**
 * Energy over the window from readings of a T-second moving average (t = time of the reading; `align` moves the
 * covered second later, see AVERAGE_ALIGN_S). null when no tile touches the window.
 */
export function boxcarEnergy(raw: readonly Point[], w: TimeWindow, T = AVERAGE_WINDOW_S, align = 0): BoxcarResult | null {
  if (raw.length === 0) return null;
  const points = align === 0 ? raw : raw.map((p) => ({ t: p.t + align, v: p.v }));
  const dt = medianInterval(points);
  if (Number.isFinite(dt) && dt <= T / 4) {
    // Read four or more times per window: invert the average exactly (chainEnergy), tiles only where it cannot.
    const chained = chainEnergy(points, w, T, Math.round(CHAIN_REACH_S / T));
    if (chained) return chained;
  }
  const tiles = buildTiles(points, w, T);
  let e = 0;
  let covered = 0;
  let used = 0;
  let firstLo = Infinity;
  let lastHi = -Infinity;
  tiles.forEach((tile, k) => {
    const x0 = Math.max(tile.lo, w.start);
    const x1 = Math.min(tile.hi, w.end);
    if (x1 <= x0) return;
    e += tileEnergy(tiles, k, x0, x1);
    covered += x1 - x0;
    used++;
    firstLo = Math.min(firstLo, tile.lo);
    lastHi = Math.max(lastHi, tile.hi);
  });
  if (used === 0) return null;
  // Before the first and after the last tile: hold the edge tile's level.
  const inside = tiles.filter((t) => t.hi > w.start && t.lo < w.end);
  if (w.start < firstLo) e += inside[0]!.mean * (firstLo - w.start);
  if (w.end > lastHi) e += inside[inside.length - 1]!.mean * (w.end - lastHi);
  return { energy_j: e, coverage: covered / (w.end - w.start), tiles: used };
}

/** Mean of linearly interpolated readings over (a, b], by the trapezoid rule on the readings inside. */
function meanLinear(points: readonly Point[], a: number, b: number, hint: { i: number }): number | null {
  const va = interp(points, a, hint);
  const vb = interp(points, b, { i: hint.i });
  if (va === null || vb === null) return null;
  let area = 0;
  let x = a;
  let v = va;
  for (let i = hint.i + 1; i < points.length && points[i]!.t < b; i++) {
    if (points[i]!.t <= a) continue;
    area += ((v + points[i]!.v) / 2) * (points[i]!.t - x);
    x = points[i]!.t;
    v = points[i]!.v;
  }
  area += ((v + vb) / 2) * (b - x);
  return area / (b - a);
}

/**
 * The alignment (s, within +-max) that best explains T-second average readings as means of instant readings taken
 * by the same sampler: least squares over a 10 ms grid. null with fewer than 10 averages inside the instant series.
 */
export function fitAverageAlign(instant: readonly Point[], average: readonly Point[], T = AVERAGE_WINDOW_S, max = 0.3): number | null {
  if (instant.length < 2) return null;
  const t0 = instant[0]!.t + T + max;
  const t1 = instant[instant.length - 1]!.t - max;
  const inside = average.filter((p) => p.t >= t0 && p.t <= t1);
  if (inside.length < 10) return null;
  let best: { align: number; sse: number } | null = null;
  for (let k = -Math.round(max * 100); k <= Math.round(max * 100); k++) {
    const align = k / 100;
    const hint = { i: 0 };
    let sse = 0;
    for (const p of inside) sse += (meanLinear(instant, p.t + align - T, p.t + align, hint)! - p.v) ** 2;
    if (!best || sse < best.sse) best = { align, sse };
  }
  return best!.align;
}

