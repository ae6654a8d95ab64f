import { PLAY_BLOCK, ProfilePlayer, type StepProfile } from './profile';
import { durationScale, jobTable, wholeNodes, wholeSteps } from './job-table';
import { PoissonDraws, Rng, type Sampler } from './rng';

/** One job type, resolved for a time step: samplers, the step profile, and the stretch a fleet cap imposes. */
export interface ResolvedJobType {
  name: string;
  share: number;
  nodes: Sampler;
  durationH: Sampler;
  profile: StepProfile;
  /** Duration multiplier (1 / relative throughput at the fleet cap). */
  stretch: number;
}

export interface TrainingModel {
  nodes: number;
  idleW: number;
  stepS: number;
  steps: number;
  allocation: 'fifo' | 'backfill';
  /** Arrival multiplier per hour of the horizon (mean 1). */
  hourly: Float64Array;
  types: ResolvedJobType[];
}

export interface TrainingRun {
  /** IT power per step (W); empty when power was not asked for. */
  it: Float64Array;
  /** Busy nodes per step. */
  busy: Int32Array;
  utilization: number;
  jobsStarted: number;
  waitMeanH: number;
  waitMaxH: number;
}

/** How far past the queue head greedy backfill looks for a job that fits the free nodes. */
const BACKFILL_DEPTH = 256;

/**
 * Time-stepped replay of the event-driven model: Poisson arrivals per step (rate = jobs/day x calendar shape), each
 * job drawing its type, node count and duration; a fixed node pool allocated FIFO (or with greedy backfill); job
 * ends are events scheduled at start into a per-step release table; power is each job's profile played over its
 * steps (ProfilePlayer, as the steps advance) plus idle power of free nodes. Draws do not depend on `power`, so the
 * search (power off) and the final run see the same jobs. Hot loop: typed arrays only, no allocation per job or step.
 */
export function simulateTraining(m: TrainingModel, jobsPerDay: number, seed: number, power: boolean): TrainingRun {
  const rng = new Rng(seed);
  const { steps, stepS, nodes: pool, idleW, hourly } = m;
  const acc = new Float64Array(power ? steps : 0);
  const busy = new Int32Array(steps);
  // Nodes freed per step, as a ring reaching past the longest job: a release is never more steps ahead than that.
  let ring = 1;
  for (const t of m.types) while (ring <= maxDurSteps(t, stepS)) ring *= 2;
  const release = new Int32Array(ring);
  const rmask = ring - 1;
  const jobs = jobTable(m.types, pool, stepS);
  const K = jobs.prob.length;
  // Interleaved copies, so a draw reads one cache line of buckets and one of triples: [prob, alias] and [type, nodes, dur].
  const bucket = new Float64Array(2 * K);
  const triple = new Int32Array(3 * K);
  for (let c = 0; c < K; c++) {
    bucket[2 * c] = jobs.prob[c]!;
    bucket[2 * c + 1] = jobs.alias[c]!;
    triple[3 * c] = jobs.type[c]!;
    triple[3 * c + 1] = jobs.nodes[c]!;
    triple[3 * c + 2] = jobs.dur[c]!;
  }
  const nodeDraws = m.types.map((t) => t.nodes);
  // Durations the table leaves to a draw come straight in steps (hours to steps folded into each type's table).
  const durDraws = m.types.map((t) => t.durationH.scaled(durationScale(t, stepS)));
  const players = power ? m.types.map((t) => new ProfilePlayer(t.profile, maxDurSteps(t, stepS))) : [];
  const nPlayers = players.length;
  const perStep = (jobsPerDay * stepS) / 86400;
  const stepsPerHour = 3600 / stepS;

  // Waiting jobs as parallel growable arrays; `qHead` advances as jobs start in order, `done` marks backfilled ones.
  let cap = 1024;
  let qType: Int32Array = new Int32Array(cap);
  let qNodes: Int32Array = new Int32Array(cap);
  let qDur: Int32Array = new Int32Array(cap);
  let qArr: Int32Array = new Int32Array(cap);
  let done: Uint8Array = new Uint8Array(cap);
  let qLen = 0;
  let qHead = 0;

  let free = pool;
  let busySum = 0;
  let jobsStarted = 0;
  let waitSum = 0;
  let waitMax = 0;

  const backfill = m.allocation === 'backfill';
  let hour = -1;
  const arrivals = new PoissonDraws();
  for (let s = 0; s < steps; s++) {
    free += release[s & rmask]!;
    release[s & rmask] = 0;
    const h = Math.floor(s / stepsPerHour);
    if (h !== hour) {
      hour = h;
      arrivals.setMean(perStep * hourly[h]!);
    }
    const k = arrivals.draw(rng);
    for (let j = 0; j < k; j++) {
      // The alias draw (drawAlias) written out: one uniform picks type, node count and duration together.
      const x = rng.next() * K;
      let c = x | 0;
      if (x - c >= bucket[2 * c]!) c = bucket[2 * c + 1]!;
      const t = triple[3 * c]!;
      let n = triple[3 * c + 1]!;
      if (n < 0) n = wholeNodes(nodeDraws[t]!.draw(rng), pool);
      let d = triple[3 * c + 2]!;
      if (d < 0) d = wholeSteps(durDraws[t]!.draw(rng));
      // Nobody waiting and it fits: it starts now, as the start loop below would start it first.
      if (qHead === qLen && n <= free) {
        free -= n;
        if (s + d < steps) release[(s + d) & rmask] = release[(s + d) & rmask]! + n;
        if (power) players[t]!.add(acc, s, d, n);
        jobsStarted++;
        continue;
      }
      if (qLen === cap) {
        if (qHead > cap >> 1) {
          // Compact: started jobs leave the front of the queue.
          qType.copyWithin(0, qHead, qLen);
          qNodes.copyWithin(0, qHead, qLen);
          qDur.copyWithin(0, qHead, qLen);
          qArr.copyWithin(0, qHead, qLen);
          done.copyWithin(0, qHead, qLen);
          done.fill(0, qLen - qHead);
          qLen -= qHead;
          qHead = 0;
        } else {
          cap *= 2;
          qType = grow(qType, cap);
          qNodes = grow(qNodes, cap);
          qDur = grow(qDur, cap);
          qArr = grow(qArr, cap);
          done = growU8(done, cap);
        }
      }
      qType[qLen] = t;
      qNodes[qLen] = n;
      qDur[qLen] = d;
      qArr[qLen] = s;
      done[qLen] = 0;
      qLen++;
    }
    // FIFO: start queued jobs in order until one does not fit. Backfill: keep scanning (to a depth) for jobs that do.
    if (qHead < qLen) {
      const limit = backfill ? Math.min(qLen, qHead + BACKFILL_DEPTH) : qLen;
      for (let i = qHead; i < limit && free > 0; i++) {
        if (done[i] === 1) continue;
        const n = qNodes[i]!;
        if (n > free) {
          if (backfill) continue;
          break;
        }
        const d = qDur[i]!;
        free -= n;
        done[i] = 1;
        if (s + d < steps) release[(s + d) & rmask] = release[(s + d) & rmask]! + n;
        if (power) players[qType[i]!]!.add(acc, s, d, n);
        const w = s - qArr[i]!;
        waitSum += w;
        if (w > waitMax) waitMax = w;
        jobsStarted++;
      }
      while (qHead < qLen && done[qHead] === 1) qHead++;
    }
    const b = pool - free;
    busy[s] = b;
    busySum += b;
    if (power) {
      acc[s] = acc[s]! + idleW * free;
      for (let p = 0; p < nPlayers; p++) players[p]!.tick();
      if ((s + 1) % PLAY_BLOCK === 0) for (let p = 0; p < nPlayers; p++) players[p]!.flush(acc, s + 1);
    }
  }
  for (let p = 0; p < nPlayers; p++) players[p]!.flush(acc, steps);
  const hours = stepS / 3600;
  return {
    it: acc,
    busy,
    utilization: busySum / (pool * steps),
    jobsStarted,
    waitMeanH: jobsStarted ? (waitSum / jobsStarted) * hours : 0,
    waitMaxH: waitMax * hours,
  };
}

/** The longest job of a type in steps (the player's event ring must reach past its end). */
function maxDurSteps(t: ResolvedJobType, stepS: number): number {
  return Math.round((t.durationH.max * 3600 * t.stretch) / stepS) + 1;
}

/** Expected busy node-hours per job, for the bisection's first bracket. */
export function meanNodeHours(types: readonly ResolvedJobType[]): number {
  const total = types.reduce((a, t) => a + t.share, 0);
  return types.reduce((a, t) => a + (t.share / total) * t.nodes.mean * t.durationH.mean * t.stretch, 0);
}

function grow(a: Int32Array, cap: number): Int32Array {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}

function growU8(a: Uint8Array, cap: number): Uint8Array {
  const b = new Uint8Array(cap);
  b.set(a);
  return b;
}
