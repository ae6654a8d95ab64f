import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { labWorkerExists, startLabWorker } from '../process/lab-worker';
import type { FacilityLevel, FacilityResult } from '../../../shared/facility';
import type { FullSeries } from '../../../core/facility/metrics';
import { buildModel, type ScenarioInput } from '../../../core/facility/model';
import { loadSearch, replicaSeed, summarize, type ReplicaResult } from '../../../core/facility/run';
import { FacilityInputError } from '../../../core/facility/profile';
import { LabError } from '../../../shared/errors';
import { runTask, type FacilityTask, type FacilityTaskResult } from './tasks';

export interface FacilityRunOptions {
  /** Worker threads (default: cores - 1, at least 1); 0 runs everything on this thread. */
  threads?: number;
  /** Folder for `<scenario>_<NN>u_power.csv` files of replica 0 (the NLR facility-profile format). */
  csvDir?: string;
  onProgress?: (done: number, total: number, label: string) => void;
  /** Cancels the run: tasks waiting or running are dropped, the workers stopped, and the run rejects. */
  signal?: AbortSignal;
  /** Given replica 0's full-resolution series of each level (by scenario name and target index), for the page's zoom. */
  keepSeries?: (scenario: string, targetIndex: number, full: FullSeries, stepS: number) => void;
}

/** A facility run stopped by its caller (the page's Cancel): HTTP 409 through the host. */
export class FacilityCancelledError extends LabError {
  constructor() {
    super('conflict', 'facility run cancelled');
  }
}

type Pending = { task: FacilityTask; resolve: (r: FacilityTaskResult) => void; reject: (e: Error) => void };

/** A small pool: each worker takes the next task when it posts a result. Errors carry the field they name. */
class TaskPool {
  private queue: Pending[] = [];
  private idle: Worker[] = [];
  private workers: Worker[] = [];
  private busy = new Map<Worker, Pending>();

  constructor(threads: number) {
    for (let i = 0; i < threads; i++) {
      const w = startLabWorker(import.meta.url, './worker.ts', './facility-worker.js');
      w.on('message', (m: { ok: boolean; result?: FacilityTaskResult; error?: string; name?: string; field?: string }) => {
        const p = this.busy.get(w)!;
        this.busy.delete(w);
        if (m.ok) p.resolve(m.result!);
        else p.reject(m.name === 'FacilityInputError' && m.field ? new FacilityInputError(m.field, m.error!.slice(m.field.length + 2)) : new Error(m.error));
        this.idle.push(w);
        this.pump();
      });
      w.on('error', (e) => {
        const p = this.busy.get(w);
        this.busy.delete(w);
        p?.reject(e);
      });
      this.workers.push(w);
      this.idle.push(w);
    }
  }

  run(task: FacilityTask): Promise<FacilityTaskResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length && this.queue.length) {
      const w = this.idle.pop()!;
      const p = this.queue.shift()!;
      this.busy.set(w, p);
      w.postMessage(p.task);
    }
  }

  /** Rejects every task waiting or running (their workers are stopped by close). */
  cancel(): void {
    for (const p of [...this.queue, ...this.busy.values()]) p.reject(new FacilityCancelledError());
    this.queue = [];
    this.busy.clear();
    this.idle = [];
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

export function defaultThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-');

/**
 * Runs every scenario x target: a load search per level (its tries as tasks, driven from here), then its replicas
 * (different seeds) at that load, spread over worker threads as tasks become ready. Replica 0 uses the search's own
 * seed, so it reproduces its utilisation: the search's second try (the proportional guess, usually the last) runs as
 * replica 0 at that load, power included, and is kept if that load is the one found. While fewer searches run than
 * there are threads, a worker would idle during each search: from the second try on, replica 1 at the tried load
 * starts beside it, kept likewise. Results do not depend on the thread count.
 */
export async function runFacility(scenarios: ScenarioInput[], opts: FacilityRunOptions = {}): Promise<FacilityResult> {
  const t0 = performance.now();
  const first = scenarios[0]!.config;
  const levelsTotal = scenarios.reduce((a, s) => a + s.config.targets.length * (s.config.replicas + (s.config.same_load_as === undefined ? 1 : 0)), 0);
  let done = 0;
  const tick = (label: string) => opts.onProgress?.(++done, levelsTotal, label);
  // A bundle built without the worker entry (the single-file CLI bundle) runs the tasks on this thread.
  const threads = labWorkerExists(import.meta.url, './facility-worker.js') ? Math.min(opts.threads ?? defaultThreads(), levelsTotal) : 0;
  const pool = threads > 0 ? new TaskPool(threads) : null;
  const signal = opts.signal;
  const onAbort = () => pool?.cancel();
  signal?.addEventListener('abort', onAbort);
  const exec = (t: FacilityTask): Promise<FacilityTaskResult> => {
    if (signal?.aborted) return Promise.reject(new FacilityCancelledError());
    return pool ? pool.run(t) : Promise.resolve().then(() => runTask(t));
  };
  const searches = scenarios.reduce((a, s) => a + (s.config.same_load_as === undefined ? s.config.targets.length : 0), 0);
  const speculate = pool !== null && threads > searches;
  const replicaTask = (sc: ScenarioInput, target: number, load: number, r: number): Promise<ReplicaResult> => {
    const csvFile = r === 0 && opts.csvDir ? join(opts.csvDir, `${slug(sc.name)}_${Math.round(target * 100)}u_power.csv`) : undefined;
    const keepFull = r === 0 && opts.keepSeries !== undefined;
    return exec({ kind: 'replica', sc, load, seed: replicaSeed(sc.config.seed, r), csvFile, keepFull }).then((res) => (res as Extract<FacilityTaskResult, { kind: 'replica' }>).replica);
  };
  // Replicas run during a level's search, by load tried and replica index.
  const early = new Map<string, Map<string, Promise<ReplicaResult>>>();
  const levelKey = (sc: ScenarioInput, i: number) => `${sc.name}\u0000${i}`;
  const tryKey = (load: number, r: number) => `${load}\u0000${r}`;
  const search = async (sc: ScenarioInput, target: number, i: number): Promise<number> => {
    const c = sc.config;
    const tries = loadSearch(buildModel(sc), target);
    const spec = new Map<string, Promise<ReplicaResult>>();
    early.set(levelKey(sc, i), spec);
    let step = tries.next();
    for (let k = 1; !step.done; k++) {
      let util: Promise<number>;
      if (k === 2) {
        // The proportional guess usually ends the search: tried with power on (the same jobs), it is replica 0.
        const r0 = replicaTask(sc, target, step.value, 0);
        spec.set(tryKey(step.value, 0), r0);
        util = r0.then((r) => r.utilization);
      } else util = exec({ kind: 'util', sc, load: step.value, seed: c.seed }).then((r) => (r as Extract<FacilityTaskResult, { kind: 'util' }>).utilization);
      if (speculate && k >= 2 && c.replicas >= 2) {
        const p = replicaTask(sc, target, step.value, 1);
        // A replica at a load the search moves on from is dropped: its failure is not the run's.
        p.catch(() => undefined);
        spec.set(tryKey(step.value, 1), p);
      }
      step = tries.next(await util);
    }
    tick(`${sc.name} ${Math.round(target * 100)} %: load found`);
    return step.value.load;
  };
  // Each level's load: searched, or (same_load_as) the named scenario's; searches start first.
  const loads = new Map<string, Promise<number>[]>();
  for (const sc of scenarios) {
    if (sc.config.same_load_as !== undefined) continue;
    loads.set(
      sc.name,
      sc.config.targets.map((target, i) => search(sc, target, i)),
    );
  }
  const loadOf = (sc: ScenarioInput, i: number): Promise<number> => {
    const from = loads.get(sc.config.same_load_as ?? sc.name);
    if (!from) throw new FacilityInputError('same_load_as', `scenario "${sc.config.same_load_as}" is not in this run`);
    return from[i]!;
  };
  try {
    const out = await Promise.all(
      scenarios.map(async (sc) => {
        const c = sc.config;
        const levels: FacilityLevel[] = await Promise.all(
          c.targets.map(async (target, i) => {
            const found = { load: await loadOf(sc, i) };
            const started = early.get(levelKey(sc, i));
            const reps = await Promise.all(
              Array.from({ length: c.replicas }, async (_, r) => {
                const replica = await (started?.get(tryKey(found.load, r)) ?? replicaTask(sc, target, found.load, r));
                tick(`${sc.name} ${Math.round(target * 100)} %: replica ${r + 1}/${c.replicas}`);
                return replica;
              }),
            );
            const full = reps[0]!.full;
            if (full) opts.keepSeries?.(sc.name, i, full, c.step_s);
            for (const r of reps) delete r.full;
            return summarize(target, found.load, reps);
          }),
        );
        return { name: sc.name, levels };
      }),
    );
    return {
      name: first.name,
      mode: first.mode,
      nodes: first.nodes,
      step_s: first.step_s,
      horizon_days: first.horizon_days,
      seed: first.seed,
      currency: first.tariff.currency,
      scenarios: out,
      levels: out[0]!.levels,
      elapsed_s: (performance.now() - t0) / 1000,
    };
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await pool?.close();
  }
}
