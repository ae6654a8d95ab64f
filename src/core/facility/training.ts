import { PLAY_BLOCK, ProfilePlayer } from './profile';
import { durationScale, jobTable, type JobTable, type ResolvedJobType, wholeNodes, wholeSteps } from './job-table';
import { PoissonDraws, Rng, type Sampler } from './rng';

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
  /** With `perType` (the grid response): each job type's power (W) and busy nodes per step. */
  types?: { power: Float64Array; busy: Float64Array }[];
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
 * Steps per call of TrainingSim.advance (a multiple of PLAY_BLOCK). A year is thousands of calls of one short
 * function, which V8 optimises once with complete feedback and then reuses for every run and replica of the process;
 * one call over the whole horizon would be compiled on-stack mid-loop and again on every run (tens of ms each).
 * Short enough that the first calls return (storing the state fields) before the loop is compiled.
 */
const CHUNK = 4 * PLAY_BLOCK;
/**
 * Steps per call at the start of a run, and for how many steps. While V8 compiles the loop on a background thread,
 * the call running when the code lands stays unoptimised, and a long one asks for a second (on-stack) compile that
 * is never used: tens of ms of compiler time in a process's first run. Short calls end before that request.
 */
const FIRST_CHUNK = PLAY_BLOCK / 4;
const FIRST_STEPS = 1 << 16;

/**
 * Time-stepped replay of the event-driven model: Poisson arrivals per step (rate = jobs/day x calendar shape), each
 * job drawing its type, node count and duration; a fixed node pool allocated FIFO (or with greedy backfill); job
 * ends are events scheduled at start into a ring of per-step releases; power is each job's profile played over its
 * steps (ProfilePlayer, as the steps advance) plus idle power of free nodes. Draws do not depend on `power`, so the
 * search (power off) and the final run see the same jobs. Hot loop: typed arrays only, no allocation per job or step.
 */
export function simulateTraining(m: TrainingModel, jobsPerDay: number, seed: number, power: boolean, perType = false): TrainingRun {
  const sim = new TrainingSim(m, jobsPerDay, seed, power, power && perType);
  for (let s = 0; s < m.steps; ) {
    s = Math.min(m.steps, s + (s < FIRST_STEPS ? FIRST_CHUNK : CHUNK));
    sim.advance(s);
  }
  return sim.result();
}

class TrainingSim {
  private readonly rng: Rng;
  private readonly pool: number;
  private readonly idleW: number;
  private readonly steps: number;
  private readonly hourly: Float64Array;
  private readonly acc: Float64Array;
  private readonly busy: Int32Array;
  /** Nodes freed per step, as a ring reaching past the longest job: a release is never more steps ahead than that. */
  private readonly release: Int32Array;
  /** The job draw's alias table as 32-byte records (JOB_RECORD), so a draw reads one cache line: the bucket's probability as a double, then type, nodes and duration of the bucket and of its alias. */
  private readonly prob: Float64Array;
  private readonly words: Int32Array;
  private readonly nodeDraws: Sampler[];
  /** Durations the table leaves to a draw come straight in steps (hours to steps folded into each type's table). */
  private readonly durDraws: Sampler[];
  private readonly players: ProfilePlayer[];
  /** The series each type's player adds into: all the IT series, or (per type) the type's own. */
  private readonly targets: Float64Array[];
  /** Per type (null unless asked): busy-node changes per step (+nodes at a start, -nodes at the end). */
  private readonly busyDiff: Float64Array[] | null;
  private readonly power: boolean;
  private readonly backfill: boolean;
  private readonly perStep: number;
  private readonly stepsPerHour: number;
  private readonly arrivals = new PoissonDraws();
  /** The first step of the next hour: the hour (a division) and its arrival rate are worked out only there. */
  private hourEnd = 0;
  private s = 0;

  // Waiting jobs as parallel growable arrays; `qHead` advances as jobs start in order, `done` marks backfilled ones
  // (1 only below qLen: past it, always 0, as made or as makeRoom clears it).
  // They start empty and the constructor grows them: stored twice from the start, these fields are never taken for
  // constants by the compiled step loop, which would be thrown away when the queue first grows mid-run.
  private cap = 0;
  private qType: Int32Array = new Int32Array(0);
  private qNodes: Int32Array = new Int32Array(0);
  private qDur: Int32Array = new Int32Array(0);
  private qArr: Int32Array = new Int32Array(0);
  private done: Uint8Array = new Uint8Array(0);
  private qLen = 0;
  private qHead = 0;

  private free: number;
  private busySum = 0;
  private jobsStarted = 0;
  private waitSum = 0;
  private waitMax = 0;

  constructor(
    private readonly m: TrainingModel,
    jobsPerDay: number,
    seed: number,
    power: boolean,
    perType: boolean,
  ) {
    this.rng = new Rng(seed);
    const { steps, stepS, nodes: pool } = m;
    this.pool = pool;
    this.free = pool;
    this.idleW = m.idleW;
    this.steps = steps;
    this.hourly = m.hourly;
    this.power = power;
    this.backfill = m.allocation === 'backfill';
    this.acc = new Float64Array(power ? steps : 0);
    this.busy = new Int32Array(steps);
    let ring = 1;
    for (const t of m.types) while (ring <= maxDurSteps(t, stepS)) ring *= 2;
    this.release = new Int32Array(ring);
    const { prob, words } = jobRecords(jobTable(m.types, pool, stepS));
    this.prob = prob;
    this.words = words;
    this.nodeDraws = m.types.map((t) => t.nodes);
    this.durDraws = m.types.map((t) => t.durationH.scaled(durationScale(t, stepS)));
    this.players = power ? m.types.map((t) => new ProfilePlayer(t.profile, maxDurSteps(t, stepS))) : [];
    this.targets = this.players.map(() => (perType ? new Float64Array(steps) : this.acc));
    this.busyDiff = perType ? m.types.map(() => new Float64Array(steps)) : null;
    this.perStep = (jobsPerDay * stepS) / 86400;
    this.stepsPerHour = 3600 / stepS;
    this.makeRoom();
  }

  /** Simulates the steps up to `end` (exclusive), its state in locals meanwhile; the power played up to there. */
  advance(end: number): void {
    const { rng, pool, idleW, steps, hourly, acc, busy, release, prob, words, nodeDraws, durDraws, players, targets, busyDiff, power, backfill, perStep, stepsPerHour, arrivals } = this;
    const rmask = release.length - 1;
    const K = prob.length >> 2;
    const nPlayers = players.length;
    let { hourEnd, free, busySum, jobsStarted, waitSum, waitMax, qLen, qHead } = this;
    for (let s = this.s; s < end; s++) {
      free += release[s & rmask]!;
      release[s & rmask] = 0;
      if (s >= hourEnd) {
        // A new hour every time: hourEnd is the first step past the last hour's.
        const h = Math.floor(s / stepsPerHour);
        arrivals.setMean(perStep * hourly[h]!);
        hourEnd = firstStepOfHour(h + 1, stepsPerHour);
      }
      const k = arrivals.draw(rng);
      for (let j = 0; j < k; j++) {
        // The alias draw (drawAlias) written out: one uniform picks type, node count and duration together.
        const x = rng.next() * K;
        const c = x | 0;
        const o = x - c >= prob[4 * c]! ? 8 * c + 5 : 8 * c + 2;
        const t = words[o]!;
        let n = words[o + 1]!;
        if (n < 0) n = wholeNodes(nodeDraws[t]!.draw(rng), pool);
        let d = words[o + 2]!;
        if (d < 0) d = wholeSteps(durDraws[t]!.draw(rng));
        if (qLen === this.cap) {
          this.qHead = qHead;
          this.qLen = qLen;
          this.makeRoom();
          qHead = this.qHead;
          qLen = this.qLen;
        }
        this.qType[qLen] = t;
        this.qNodes[qLen] = n;
        this.qDur[qLen] = d;
        this.qArr[qLen] = s;
        qLen++;
      }
      // FIFO: start queued jobs in order until one does not fit. Backfill: keep scanning (to a depth) for jobs that do.
      if (qHead < qLen) {
        const { qType, qNodes, qDur, qArr, done } = this;
        const limit = backfill ? Math.min(qLen, qHead + BACKFILL_DEPTH) : qLen;
        for (let i = qHead; i < limit && free > 0; i++) {
          if (backfill && done[i] === 1) continue;
          const n = qNodes[i]!;
          if (n > free) {
            if (backfill) continue;
            break;
          }
          const d = qDur[i]!;
          free -= n;
          // FIFO starts a prefix of the queue: its head moves past the job; backfill marks it and moves the head after.
          if (backfill) done[i] = 1;
          else qHead = i + 1;
          if (s + d < steps) release[(s + d) & rmask] = release[(s + d) & rmask]! + n;
          if (power) {
            const t = qType[i]!;
            players[t]!.add(targets[t]!, s, d, n);
            if (busyDiff !== null) {
              busyDiff[t]![s]! += n;
              if (s + d < steps) busyDiff[t]![s + d]! -= n;
            }
          }
          const w = s - qArr[i]!;
          waitSum += w;
          if (w > waitMax) waitMax = w;
          jobsStarted++;
        }
        if (backfill) while (qHead < qLen && done[qHead] === 1) qHead++;
      }
      const b = pool - free;
      busy[s] = b;
      busySum += b;
      if (power) {
        acc[s] = acc[s]! + idleW * free;
        for (let p = 0; p < nPlayers; p++) players[p]!.tick();
        if (((s + 1) & (PLAY_BLOCK - 1)) === 0) for (let p = 0; p < nPlayers; p++) players[p]!.flush(targets[p]!, s + 1);
      }
    }
    for (let p = 0; p < nPlayers; p++) players[p]!.flush(targets[p]!, end);
    this.s = end;
    this.hourEnd = hourEnd;
    this.free = free;
    this.busySum = busySum;
    this.jobsStarted = jobsStarted;
    this.waitSum = waitSum;
    this.waitMax = waitMax;
    this.qLen = qLen;
    this.qHead = qHead;
  }

  /** Room for one more waiting job: started jobs leave the front of the queue, or the arrays double. */
  private makeRoom(): void {
    const { qHead, qLen } = this;
    if (qHead > this.cap >> 1) {
      this.qType.copyWithin(0, qHead, qLen);
      this.qNodes.copyWithin(0, qHead, qLen);
      this.qDur.copyWithin(0, qHead, qLen);
      this.qArr.copyWithin(0, qHead, qLen);
      this.done.copyWithin(0, qHead, qLen);
      this.done.fill(0, qLen - qHead);
      this.qLen = qLen - qHead;
      this.qHead = 0;
      return;
    }
    this.cap = Math.max(1024, this.cap * 2);
    this.qType = grow(this.qType, this.cap);
    this.qNodes = grow(this.qNodes, this.cap);
    this.qDur = grow(this.qDur, this.cap);
    this.qArr = grow(this.qArr, this.cap);
    this.done = growU8(this.done, this.cap);
  }

  result(): TrainingRun {
    const hours = this.m.stepS / 3600;
    const { jobsStarted, waitSum, acc, targets, busyDiff } = this;
    let types: TrainingRun['types'];
    if (busyDiff !== null) {
      types = targets.map((power, t) => {
        for (let k = 0; k < acc.length; k++) acc[k] = acc[k]! + power[k]!;
        // The busy-node count in place of its changes.
        const busy = busyDiff[t]!;
        for (let k = 1; k < busy.length; k++) busy[k] = busy[k]! + busy[k - 1]!;
        return { power, busy };
      });
    }
    return {
      it: acc,
      types,
      busy: this.busy,
      utilization: this.busySum / (this.pool * this.steps),
      jobsStarted,
      waitMeanH: jobsStarted ? (waitSum / jobsStarted) * hours : 0,
      waitMaxH: this.waitMax * hours,
    };
  }
}

/** Bytes per job record: the probability (8), then type, nodes and duration of the bucket (12) and of its alias (12). */
const JOB_RECORD = 32;

/**
 * The job table as records for the step loop: one buffer seen as doubles (the probability, double index 4c) and as
 * 32-bit words (the bucket's triple at word 8c + 2, its alias's at 8c + 5). A draw that takes the alias then reads
 * no second bucket: the table no longer fits the first-level cache, and every draw lands on a random bucket.
 * A loop of its own: inside the constructor it would be compiled on-stack with feedback for the loop only, and
 * thrown away (and the constructor recompiled) on the next run.
 */
function jobRecords(jobs: JobTable): { prob: Float64Array; words: Int32Array } {
  const K = jobs.prob.length;
  const buffer = new ArrayBuffer(K * JOB_RECORD);
  const prob = new Float64Array(buffer);
  const words = new Int32Array(buffer);
  for (let c = 0; c < K; c++) {
    const a = jobs.alias[c]!;
    prob[4 * c] = jobs.prob[c]!;
    words[8 * c + 2] = jobs.type[c]!;
    words[8 * c + 3] = jobs.nodes[c]!;
    words[8 * c + 4] = jobs.dur[c]!;
    words[8 * c + 5] = jobs.type[a]!;
    words[8 * c + 6] = jobs.nodes[a]!;
    words[8 * c + 7] = jobs.dur[a]!;
  }
  return { prob, words };
}

/** The first step s whose hour, floor(s / stepsPerHour), is at least h (exactly as the step loop would compute it). */
export function firstStepOfHour(h: number, stepsPerHour: number): number {
  let s = Math.ceil(h * stepsPerHour);
  while (s > 0 && Math.floor((s - 1) / stepsPerHour) >= h) s--;
  while (Math.floor(s / stepsPerHour) < h) s++;
  return s;
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
