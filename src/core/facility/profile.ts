import { LabError } from '../../shared/errors';

/** Event rings longer than this many steps fall back to writing each job's steps. */
const MAX_RING = 1 << 22;
/** Loops longer than this many steps fall back too: the per-step sum over loop phases would cost more than it saves. */
const MAX_LOOP = 256;
/** Steps played per flush: the simulation only ticks each step; the playing runs in tight loops over blocks. A power of two (callers test block ends with a mask). */
export const PLAY_BLOCK = 64;

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

/**
 * Plays many jobs of one profile into a power series as the simulation advances: the same result as addPlayed per
 * job (up to rounding), at O(1) per job. A job that keeps its whole start-up and wind-down becomes events in a ring
 * of future steps: its start (the start-up values are convolved over recent starts), the start of its wind-down
 * (likewise), and the start and end of its looped middle as +/- nodes on the count of its loop phase (body start
 * mod loop length). Starts and body starts are summed per step (every job starting at a step shares them); each
 * job's wind-down start, which is also its body's end, is one event on a per-step list (its phase differs from the
 * step's; a job without a body has phase -1). Playing a step adds the two
 * convolutions plus sum over phases of count x the loop value at that phase, so a job's cost no longer grows with
 * its length. Jobs too short to keep start-up and wind-down whole, and profiles whose ring or loop would be too
 * large, are written step by step (addPlayed). Use: add() the jobs starting at the current step, tick() once per
 * step, flush(acc, s) at least every PLAY_BLOCK steps and at the end; flushed steps are final.
 */
export class ProfilePlayer {
  private readonly v: Float64Array;
  private readonly head: number;
  private readonly tail: number;
  private readonly loop: number;
  private readonly headPhase: number;
  private readonly ringOn: boolean;
  /** Ring of steps (longer than the longest job plus a block): starts, wind-down starts and body starts per step. */
  private readonly slots: number;
  private readonly startAt: Float64Array;
  private readonly bodyAt: Float64Array;
  /** Nodes of the jobs added at the current step, and of those among them with a body; written out by tick(). */
  private stepStarts = 0;
  private stepBodies = 0;
  /** Wind-down starts (= body ends) per step as linked lists (first event per slot, -1 when none) over a growable event pool. */
  private readonly endFirst: Int32Array;
  private endNext = new Int32Array(0);
  private endPhase = new Int32Array(0);
  private endNodes = new Float64Array(0);
  private freeEvent = -1;
  /** Starts and wind-down starts of the last steps played (power-of-two histories for the two convolutions). */
  private readonly startHist: Float64Array;
  private readonly tailHist: Float64Array;
  private readonly mask: number;
  /** table[phase * loop + r]: the loop value at step phase (s mod loop) for a job whose body started at residue r. */
  private readonly table: Float64Array;
  private readonly count: Float64Array;
  private active = 0;
  /** The simulation's current step: its ring slot and loop phase. */
  private slot = 0;
  private phase = 0;
  /** The next step to play: its ring slot and loop phase. */
  private played = 0;
  private playSlot = 0;
  private playPhase = 0;

  constructor(
    private readonly p: StepProfile,
    maxDurSteps: number,
  ) {
    this.v = p.values;
    this.head = p.head;
    this.tail = p.tail;
    const B = Math.max(1, p.values.length - p.tail - p.head);
    this.loop = B;
    this.headPhase = p.head % B;
    this.slots = Math.ceil(maxDurSteps) + PLAY_BLOCK + 1;
    this.ringOn = B <= MAX_LOOP && this.slots <= MAX_RING;
    const W = this.ringOn ? this.slots : 0;
    this.startAt = new Float64Array(W);
    this.bodyAt = new Float64Array(W);
    this.endFirst = new Int32Array(W).fill(-1);
    let h = 1;
    while (h < Math.max(p.head, p.tail)) h *= 2;
    this.mask = h - 1;
    this.startHist = new Float64Array(h);
    this.tailHist = new Float64Array(h);
    this.table = new Float64Array(this.ringOn ? B * B : 0);
    if (this.ringOn) for (let ph = 0; ph < B; ph++) for (let r = 0; r < B; r++) this.table[ph * B + r] = this.v[this.head + ((ph - r + B) % B)]!;
    this.count = new Float64Array(B);
    // An event pool from the start: growing it first while the simulation runs changes the fields its compiled code relies on.
    if (this.ringOn) this.growEvents();
  }

  /** Adds a job of `dur` steps on `nodes` nodes starting at the current step `start`. */
  add(acc: Float64Array, start: number, dur: number, nodes: number): void {
    const { head, tail, slot, slots: W } = this;
    if (!this.ringOn || dur < head + tail || dur >> 1 < tail || dur + PLAY_BLOCK >= W) return addPlayed(acc, this.p, start, dur, nodes);
    this.stepStarts += nodes;
    // Ring slot of the wind-down start (start + dur - tail), where the body (if any) ends.
    const b1 = slot + dur - tail < W ? slot + dur - tail : slot + dur - tail - W;
    let r = -1;
    if (dur - tail > head) {
      this.stepBodies += nodes;
      // The body's phase, (start + head) mod loop, from the running phase of `start` (no integer division).
      r = this.phase + this.headPhase;
      if (r >= this.loop) r -= this.loop;
    }
    this.pushEnd(b1, r, nodes);
  }

  /** The simulation moves on to its next step. */
  tick(): void {
    const { slot, slots: W } = this;
    if (this.stepStarts !== 0) {
      this.startAt[slot] = this.startAt[slot]! + this.stepStarts;
      this.stepStarts = 0;
    }
    if (this.stepBodies !== 0) {
      const b0 = slot + this.head < W ? slot + this.head : slot + this.head - W;
      this.bodyAt[b0] = this.bodyAt[b0]! + this.stepBodies;
      this.stepBodies = 0;
    }
    this.slot = slot + 1 === W ? 0 : slot + 1;
    this.phase = this.phase + 1 === this.loop ? 0 : this.phase + 1;
  }

  /** Adds what the counted jobs draw at every step not yet played, up to `end` (exclusive), into acc. */
  flush(acc: Float64Array, end: number): void {
    if (!this.ringOn) return;
    const { v, head, tail, loop: B, mask, startHist, tailHist, count, table, startAt, bodyAt, endFirst, endNext, endPhase, endNodes, slots: W } = this;
    const t0 = v.length - tail;
    let slot = this.playSlot;
    let ph = this.playPhase;
    let active = this.active;
    let free = this.freeEvent;
    for (let s = this.played; s < end; s++) {
      const hp = s & mask;
      startHist[hp] = startAt[slot]!;
      startAt[slot] = 0;
      // Body: jobs whose body starts now join the count of this step's phase; jobs whose body ends now leave theirs.
      const begin = bodyAt[slot]!;
      if (begin !== 0) {
        if (count[ph] === 0) active++;
        count[ph] = count[ph]! + begin;
        bodyAt[slot] = 0;
      }
      let winding = 0;
      for (let e = endFirst[slot]!; e >= 0; ) {
        const n = endNodes[e]!;
        winding += n;
        const r = endPhase[e]!;
        if (r >= 0) {
          const c = count[r]! - n;
          count[r] = c;
          if (c === 0) active--;
        }
        const next = endNext[e]!;
        endNext[e] = free;
        free = e;
        e = next;
      }
      endFirst[slot] = -1;
      tailHist[hp] = winding;
      let w = 0;
      for (let k = 0; k < head; k++) w += startHist[(s - k) & mask]! * v[k]!;
      for (let k = 0; k < tail; k++) w += tailHist[(s - k) & mask]! * v[t0 + k]!;
      if (active > 0) {
        // Four partial sums: the adds of one chain wait on each other, four chains overlap.
        const row = ph * B;
        let w0 = 0;
        let w1 = 0;
        let w2 = 0;
        let w3 = 0;
        let r = 0;
        for (; r + 3 < B; r += 4) {
          w0 += count[r]! * table[row + r]!;
          w1 += count[r + 1]! * table[row + r + 1]!;
          w2 += count[r + 2]! * table[row + r + 2]!;
          w3 += count[r + 3]! * table[row + r + 3]!;
        }
        for (; r < B; r++) w0 += count[r]! * table[row + r]!;
        w += w0 + w1 + (w2 + w3);
      }
      acc[s] = acc[s]! + w;
      slot = slot + 1 === W ? 0 : slot + 1;
      ph = ph + 1 === B ? 0 : ph + 1;
    }
    this.played = Math.max(this.played, end);
    this.playSlot = slot;
    this.playPhase = ph;
    this.active = active;
    this.freeEvent = free;
  }

  private pushEnd(slot: number, phase: number, nodes: number): void {
    let e = this.freeEvent;
    if (e < 0) e = this.growEvents();
    this.freeEvent = this.endNext[e]!;
    this.endPhase[e] = phase;
    this.endNodes[e] = nodes;
    this.endNext[e] = this.endFirst[slot]!;
    this.endFirst[slot] = e;
  }

  /** Doubles the end-event pool, the new events on the free list; returns the first free one. */
  private growEvents(): number {
    const old = this.endNext.length;
    const n = Math.max(1024, old * 2);
    const next = new Int32Array(n);
    next.set(this.endNext);
    for (let i = old; i < n; i++) next[i] = i + 1 < n ? i + 1 : -1;
    const phase = new Int32Array(n);
    phase.set(this.endPhase);
    const nodes = new Float64Array(n);
    nodes.set(this.endNodes);
    this.endNext = next;
    this.endPhase = phase;
    this.endNodes = nodes;
    this.freeEvent = old;
    return old;
  }
}
