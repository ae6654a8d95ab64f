// The sweep's side of plan `adaptive`: feeds the pure rules of src/core/sweep (window, cool-down, sequential
// repetitions) with live readings and the stored runs, and says what the orchestrator should do next.
import type { Db } from '../store/db';
import { loadSweepInput } from '../analysis/load';
import { analyzeSweep } from '../../../core/analysis/analyze';
import { AdaptiveWindow, type WindowVerdict } from '../../../core/sweep/adaptive-window';
import { baselineOf, judgeCooldown, type Baseline, type CoolReading } from '../../../core/sweep/adaptive-cooldown';
import { orderBatch, pointsOfGroup, proposeRepetitions, runsMadeOfGroup } from '../../../core/sweep/adaptive-repetitions';
import { planCaps, sequentialRunBudget, type Plan, type PlannedRun } from '../../../shared/plan';
import type { RunAdaptive } from '../../../shared/records';
import type { Sample } from '../../../shared/device';

/** Pre-sweep baseline: idle readings over this many device seconds before the first run. */
const BASELINE_S = 3;
/** Readings kept per device for the cool-down's slope test. */
const KEEP_READINGS = 600;

/** A cool-down reading with the energy counter the window's power is taken from where a reading carries both. */
type Reading = CoolReading & { energy_mj: number | null };
/** An energy-counter reading of its own (power null): NVML's sampler readings carry none, the orchestrator reads it. */
type CounterReading = { t: number; energy_mj: number };

export class AdaptiveDriver {
  private readonly readings = new Map<string, Reading[]>();
  private readonly counters = new Map<string, CounterReading[]>();
  private baselines = new Map<string, Baseline>();
  private win: AdaptiveWindow | null = null;
  private verdict: WindowVerdict | null = null;
  private addedRuns = 0;
  private rounds = 0;

  constructor(
    private readonly plan: Plan & { adaptive: NonNullable<Plan['adaptive']> },
    /** Device seconds now (the backend's clock). */
    private readonly now: () => number,
    /** When the sweep began, device seconds. */
    private readonly startedAt: number,
  ) {}

  static of(plan: Plan, now: () => number): AdaptiveDriver | null {
    return plan.adaptive ? new AdaptiveDriver(plan as Plan & { adaptive: NonNullable<Plan['adaptive']> }, now, now()) : null;
  }

  /** Plan `adaptive.window` is on: the orchestrator reads the energy counter through each window for it. */
  get judgesWindow(): boolean {
    return this.plan.adaptive.window !== undefined;
  }

  /**
   * Every GPU reading of the sampler (also between runs) and every energy-counter reading of the orchestrator's:
   * the window's power and the cool-down's readings.
   */
  onSamples(samples: readonly Sample[]): void {
    for (const s of samples) {
      if (s.power_w === null && s.temp_c === null) {
        if (s.energy_mj === null) continue;
        // Kept apart from the cool-down's readings, whose last one must carry temperature and power.
        let list = this.counters.get(s.device_id);
        if (!list) this.counters.set(s.device_id, (list = []));
        list.push({ t: s.t, energy_mj: s.energy_mj });
        if (list.length > KEEP_READINGS) list.splice(0, list.length - KEEP_READINGS);
        this.win?.sample(s.device_id, s.t, null, s.energy_mj);
        continue;
      }
      let list = this.readings.get(s.device_id);
      if (!list) this.readings.set(s.device_id, (list = []));
      list.push({ t: s.t, temp_c: s.temp_c, power_w: s.power_w, energy_mj: s.energy_mj });
      if (list.length > KEEP_READINGS) list.splice(0, list.length - KEEP_READINGS);
      this.win?.sample(s.device_id, s.t, s.power_w, s.energy_mj);
    }
  }

  /** Takes the pre-sweep baseline (idle readings before the first run) when the cool-down is adaptive. */
  async takeBaseline(sleep: (s: number) => Promise<void>): Promise<void> {
    if (!this.plan.adaptive.cooldown) return;
    await sleep(BASELINE_S);
    for (const [device, list] of this.readings) this.baselines.set(device, baselineOf(list));
  }

  /** The run's windowDone hook (RunProgress), or undefined when the window is fixed. */
  windowHook(warmupEnd: () => number | null): ((step: { t: number; units: number; dt: number }) => boolean) | undefined {
    const rule = this.plan.adaptive.window;
    this.win = null;
    this.verdict = null;
    if (!rule) return undefined;
    return (step) => {
      const start = warmupEnd();
      if (start === null) return false;
      if (!this.win) {
        this.win = new AdaptiveWindow(rule, start);
        for (const [device, list] of this.readings) for (const r of list) this.win.sample(device, r.t, r.power_w, r.energy_mj);
        for (const [device, list] of this.counters) for (const r of list) this.win.sample(device, r.t, null, r.energy_mj);
      }
      this.win.step(step.t, step.units, step.dt);
      this.verdict = this.win.judge(step.t);
      return this.verdict.stop;
    };
  }

  /** What the adaptive window decided for the run just measured (null when the window is fixed). */
  windowRecord(seconds: number): RunAdaptive['window'] | null {
    if (!this.plan.adaptive.window) return null;
    const planned = 'seconds' in this.plan.window ? this.plan.window.seconds : null;
    const v = this.verdict;
    this.win = null;
    const settled = v?.stop === true;
    return {
      settled,
      seconds,
      planned_s: planned,
      throughput_ci: v?.throughput_ci ?? null,
      power_ci: v?.power_ci ?? null,
      reason: settled ? v!.reason : `the plan's window ended first${v ? ` (${v.reason})` : ''}`,
    };
  }

  /** Waits until every device has settled or the plan's cool-down is over; what was waited, and why it ended. */
  async coolDown(sleep: (s: number) => Promise<void>, halted: () => boolean): Promise<NonNullable<RunAdaptive['cooldown']> | null> {
    const rule = this.plan.adaptive.cooldown;
    if (!rule) return null;
    const max = this.plan.cooldown_s;
    const t0 = this.now();
    for (;;) {
      const waited = this.now() - t0;
      if (halted()) return { waited_s: waited, planned_s: max, how: 'cancelled', reason: 'the sweep stopped' };
      const verdicts = [...this.readings].map(([device, list]) => judgeCooldown(list.filter((r) => r.t >= t0), this.baselines.get(device) ?? { temp_c: null, power_w: null }, rule, waited, max));
      const open = verdicts.find((v) => !v.settled);
      if (!open && verdicts.length > 0) {
        const how = verdicts.some((v) => v.how === 'bound') ? 'bound' : verdicts.some((v) => v.how === 'flat') ? 'flat' : 'baseline';
        return { waited_s: waited, planned_s: max, how, reason: verdicts.map((v) => v.reason).join('; ') };
      }
      if (waited >= max) return { waited_s: waited, planned_s: max, how: 'bound', reason: `the plan's cool-down of ${max} s is over` };
      await sleep(Math.min(rule.check_s, max - waited));
    }
  }

  /** The sweep has spent its device-time budget: nothing more is added. */
  overBudget(): boolean {
    const gpu = this.plan.adaptive.budget.gpu_s;
    return gpu !== undefined && this.now() - this.startedAt >= gpu;
  }

  /**
   * Sequential repetitions: the next batch (shuffled when the plan's order is randomized), each with its reason;
   * empty when every place is decided, a bound is reached or the budget is spent.
   */
  nextRepetitions(db: Db, sweepId: number, nextOrder: number): PlannedRun[] {
    const a = this.plan.adaptive;
    if (!a.repetitions || this.overBudget()) return [];
    const refine = !Array.isArray(this.plan.caps) && 'adaptive' in this.plan.caps ? this.plan.caps.adaptive.max_runs : 0;
    const runsLeft = sequentialRunBudget(this.plan, planCaps(this.plan.caps).length + refine) - this.addedRuns;
    if (runsLeft <= 0) return [];
    const { input } = loadSweepInput(db, sweepId);
    const alpha = 1 - a.confidence;
    const pool_single = a.repetitions.pool_single;
    const result = analyzeSweep(input, { overhead_w: this.plan.overhead_w, margin: a.margin, alpha, pool_single });
    const added: PlannedRun[] = [];
    for (const group of result.groups) {
      const proposal = proposeRepetitions({ points: pointsOfGroup(group, result.runs), selector: 'max-efficiency', margin: a.margin, alpha, max_per_cap: a.repetitions.max_per_cap, runs_left: runsLeft - added.length, pool_single, made: runsMadeOfGroup(group) });
      for (const r of proposal.runs) added.push({ workload: group.workload, cap_w: r.cap_w, repetition: r.repetition, order: 0, reason: r.reason });
    }
    this.addedRuns += added.length;
    return orderBatch(added, this.plan.order, this.plan.seed, ++this.rounds).map((r, k) => ({ ...r, order: nextOrder + k }));
  }
}
