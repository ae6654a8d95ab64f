import { LabError } from '../../shared/errors';

/** A per-node power profile: W against seconds from job start, as measured (any spacing, ascending time). */
export interface NodeProfile {
  t_s: ArrayLike<number>;
  power_w: ArrayLike<number>;
  /** Start-up and wind-down kept as measured when a job outlasts the profile (the middle loops). */
  ramp_s?: number;
  tail_s?: number;
}

/** Bad facility input, the field named: an 'invalid' LabError, so every face reports it as bad input. */
export class FacilityInputError extends LabError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('invalid', `${field}: ${message}`);
    this.name = 'FacilityInputError';
  }
}

/**
 * Checks a profile is usable per node: non-empty, finite, ascending time, no negative power, and no reading above
 * 1.5x the node's rated power (the usual sign of mW or of a whole job's sum given as one node).
 */
export function checkProfile(p: NodeProfile, field: string, ratedW: number): void {
  const n = p.power_w.length;
  if (n === 0) throw new FacilityInputError(field, 'the profile is empty (no power readings)');
  if (p.t_s.length !== n) throw new FacilityInputError(field, `${p.t_s.length} times but ${n} power readings`);
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const w = p.power_w[i]!;
    const t = p.t_s[i]!;
    if (!Number.isFinite(w) || !Number.isFinite(t)) throw new FacilityInputError(field, `reading ${i} is not a number`);
    if (w < 0) throw new FacilityInputError(field, `reading ${i} is negative (${w} W)`);
    if (i > 0 && t <= p.t_s[i - 1]!) throw new FacilityInputError(field, `times must increase (reading ${i} at ${t} s)`);
    if (w > max) max = w;
  }
  if (max > ratedW * 1.5)
    throw new FacilityInputError(field, `peaks at ${Math.round(max)} W per node, over 1.5x the rated ${ratedW} W: wrong units (mW? kW?) or a multi-node sum without 'nodes'`);
  if (max < 1) throw new FacilityInputError(field, `peaks at ${max} W per node: wrong units (kW or MW given as W?)`);
}

/** A profile resampled to the simulation step: the mean power over each step from job start (sample-and-hold). */
export interface StepProfile {
  values: Float64Array;
  /** Steps kept at the start and at the end; the middle [head, length - tail) loops for longer jobs. */
  head: number;
  tail: number;
  /** Mean over the played profile for a job of the profile's own length. */
  mean: number;
}

export function toSteps(p: NodeProfile, stepS: number): StepProfile {
  const n = p.power_w.length;
  const t0 = p.t_s[0]!;
  // The last reading holds for one median sampling interval.
  const dt = n > 1 ? (p.t_s[n - 1]! - t0) / (n - 1) : stepS;
  const span = p.t_s[n - 1]! - t0 + dt;
  const len = Math.max(1, Math.round(span / stepS));
  const values = new Float64Array(len);
  let i = 0;
  for (let k = 0; k < len; k++) {
    const a = k * stepS;
    const b = Math.min(span, (k + 1) * stepS);
    let e = 0;
    let t = a;
    while (i < n - 1 && p.t_s[i + 1]! - t0 <= a) i++;
    let j = i;
    while (t < b) {
      const next = j < n - 1 ? Math.min(b, p.t_s[j + 1]! - t0) : b;
      e += p.power_w[j]! * (next - t);
      t = next;
      if (j < n - 1 && t >= p.t_s[j + 1]! - t0) j++;
    }
    values[k] = b > a ? e / (b - a) : p.power_w[n - 1]!;
  }
  const head = Math.min(len - 1, Math.round((p.ramp_s ?? 0) / stepS));
  const tail = Math.min(len - 1 - head, Math.round((p.tail_s ?? 0) / stepS));
  let s = 0;
  for (let k = 0; k < len; k++) s += values[k]!;
  return { values, head, tail: Math.max(0, tail), mean: s / len };
}

/**
 * Adds `nodes` x the profile played for a job of `dur` steps starting at step `start` into `acc`. Jobs shorter than
 * the profile keep its start and its last `tail` steps (at most half the job); longer ones loop the middle.
 */
export function addPlayed(acc: Float64Array, p: StepProfile, start: number, dur: number, nodes: number): void {
  const v = p.values;
  const len = v.length;
  const tail = Math.min(p.tail, dur >> 1);
  const bodyEnd = len - p.tail;
  const end = Math.min(acc.length, start + dur);
  const tailStart = start + dur - tail;
  const firstEnd = Math.min(end, tailStart, start + bodyEnd);
  let s = start;
  for (let k = 0; s < firstEnd; s++, k++) acc[s] = acc[s]! + nodes * v[k]!;
  if (s < Math.min(end, tailStart)) {
    const loop = Math.max(1, bodyEnd - p.head);
    let k = p.head + ((s - start - p.head) % loop);
    const stop = Math.min(end, tailStart);
    for (; s < stop; s++) {
      acc[s] = acc[s]! + nodes * v[k]!;
      if (++k >= p.head + loop) k = p.head;
    }
  }
  for (let k = len - (tailStart + tail - s); s < end; s++, k++) acc[s] = acc[s]! + nodes * v[k]!;
}

/** Loops no longer than this many steps go through the periodic accumulator (cost B x steps instead of per step). */
const MAX_PERIODIC_LOOP = 64;

/**
 * Accumulates many jobs of one profile into a power series; same result as addPlayed per job (up to rounding).
 * Start-up, wind-down and the last partial loop period are added step by step. Whole loop periods are counted on a
 * grid of B-step blocks aligned to the job's own phase (residue r = body start mod B): an O(1) difference entry per
 * job. finish() walks the steps once, keeping the running count of each residue (one residue moves to its next
 * block per step) and adding sum_r count[r] x body[(s - r) mod B], so a job's cost no longer grows with its length.
 */
export class ProfileAccumulator {
  private readonly loop: number;
  private readonly periodic: boolean;
  private readonly blocks: number;
  /** diff[q * B + r]: change of the count of residue r at block q of r's grid (steps r + qB … r + qB + B - 1). */
  private diff: Float64Array;

  constructor(
    private readonly p: StepProfile,
    private readonly steps: number,
  ) {
    this.loop = Math.max(1, p.values.length - p.tail - p.head);
    this.periodic = this.loop <= MAX_PERIODIC_LOOP && steps >= 4 * this.loop;
    this.blocks = Math.ceil(steps / this.loop) + 1;
    this.diff = new Float64Array(this.periodic ? (this.blocks + 1) * this.loop : 0);
  }

  add(acc: Float64Array, start: number, dur: number, nodes: number): void {
    if (!this.periodic) return addPlayed(acc, this.p, start, dur, nodes);
    const { values: v, head } = this.p;
    const len = v.length;
    const B = this.loop;
    const tail = Math.min(this.p.tail, dur >> 1);
    const tailStart = start + dur - tail;
    const end = Math.min(acc.length, start + dur);
    const headEnd = Math.min(end, tailStart, start + head);
    let s = start;
    for (let k = 0; s < headEnd; s++, k++) acc[s] = acc[s]! + nodes * v[k]!;
    const b0 = start + head;
    const b1 = Math.min(end, tailStart);
    if (b1 > b0) {
      const r = b0 % B;
      const q0 = (b0 - r) / B;
      const periods = Math.floor((b1 - b0) / B);
      if (periods > 0) {
        this.diff[q0 * B + r] = this.diff[q0 * B + r]! + nodes;
        this.diff[(q0 + periods) * B + r] = this.diff[(q0 + periods) * B + r]! - nodes;
      }
      const h = head;
      for (let x = b0 + periods * B, k = 0; x < b1; x++, k++) acc[x] = acc[x]! + nodes * v[h + k]!;
      s = b1;
    }
    for (let k = len - (tailStart + tail - s); s < end; s++, k++) acc[s] = acc[s]! + nodes * v[k]!;
  }

  /** Adds the whole loop periods counted so far into `acc`. */
  finish(acc: Float64Array): void {
    if (!this.periodic) return;
    const B = this.loop;
    const v = this.p.values;
    const h = this.p.head;
    // table[phase * B + r]: the body value at step phase (s mod B) for a job of residue r.
    const table = new Float64Array(B * B);
    for (let ph = 0; ph < B; ph++) for (let r = 0; r < B; r++) table[ph * B + r] = v[h + ((ph - r + B) % B)]!;
    const count = new Float64Array(B);
    let active = 0;
    const n = Math.min(acc.length, this.steps);
    for (let s = 0, ph = 0, q = 0; s < n; s++) {
      // Residue ph starts block q of its grid at step s = ph + qB.
      const d = this.diff[q * B + ph]!;
      if (d !== 0) {
        if (count[ph] === 0) active++;
        count[ph] = count[ph]! + d;
        if (count[ph] === 0) active--;
      }
      if (active > 0) {
        let w = 0;
        const row = ph * B;
        for (let r = 0; r < B; r++) w += count[r]! * table[row + r]!;
        acc[s] = acc[s]! + w;
      }
      if (++ph === B) {
        ph = 0;
        q++;
      }
    }
  }
}
