import { planCaps, type Plan, type PlannedRun } from '../shared/plan';

/** Small seeded PRNG (mulberry32): the same plan and seed give the same run order everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * Expands a plan into its runs: every workload at every cap, per repetition. With order 'randomized' the runs of
 * each repetition are shuffled (seeded), so slow drifts (temperature, clocks) do not line up with the cap order.
 */
export function scheduleRuns(plan: Pick<Plan, 'workloads' | 'caps' | 'repetitions' | 'order' | 'seed'>): PlannedRun[] {
  const caps = planCaps(plan.caps);
  const rand = seededRandom(plan.seed);
  const runs: PlannedRun[] = [];
  for (let rep = 1; rep <= plan.repetitions; rep++) {
    const block = plan.workloads.flatMap((w) => caps.map((cap_w) => ({ workload: w.id, cap_w })));
    if (plan.order === 'randomized') shuffle(block, rand);
    for (const r of block) runs.push({ ...r, repetition: rep, order: runs.length });
  }
  return runs;
}

function spanSeconds(span: Plan['warmup'], stepSeconds: number): number {
  return 'seconds' in span ? span.seconds : span.steps * stepSeconds;
}

/** Rough duration of a plan in the devices' time: warm-up + window + cool-down per run. */
export function estimatePlanSeconds(plan: Plan, stepSeconds = 0.5): number {
  const perRun = spanSeconds(plan.warmup, stepSeconds) + spanSeconds(plan.window, stepSeconds) + plan.cooldown_s + 2;
  return scheduleRuns(plan).length * perRun;
}
