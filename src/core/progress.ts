/**
 * A sweep's progress as work done over work planned. Each run counts as one unit of work; the phases inside a run
 * count as the share of that unit reached when they start. The fraction never goes backwards: when adaptive
 * refinement adds runs (more work planned), it holds until the work done catches up.
 */
export type RunPhase = 'setting-cap' | 'warmup' | 'measure' | 'cooldown' | 'idle';

const PHASE_SHARE: Record<RunPhase, number> = { 'setting-cap': 0, warmup: 0.05, measure: 0.3, cooldown: 0.95, idle: 1 };

export class SweepProgressMeter {
  private reached = 0;

  /** The fraction when run `runIndex` (0-based) of `planned` enters `phase`. */
  at(runIndex: number, phase: RunPhase, planned: number): number {
    const f = planned > 0 ? Math.min(1, (runIndex + PHASE_SHARE[phase]) / planned) : 0;
    this.reached = Math.max(this.reached, f);
    return this.reached;
  }
}
