// Phase changes while a cap is held: an evaluation pass, a new training stage. A sustained shift of throughput or
// power per GPU away from what the profile measured at the held cap means the profile no longer describes the job.
export interface PhaseRules {
  /** Smallest relative shift that counts, whatever the visits' spread. */
  min_shift: number;
  /** Shift in units of the profile's visit-to-visit spread (relative sd) that counts, where that is larger. */
  sd_factor: number;
  /** Consecutive shifted windows (same direction) before it is called a phase change. */
  persist: number;
}

export const DEFAULT_PHASE_RULES: PhaseRules = { min_shift: 0.05, sd_factor: 4, persist: 3 };

export interface PhaseWindow {
  throughput: number;
  power_w: number;
}

export interface PhaseReference {
  throughput: number;
  power_w: number;
  /** Relative visit-to-visit sd of each, 0 where unknown. */
  throughput_sd: number;
  power_sd: number;
}

export type PhaseVerdict = { changed: false; shifted: number } | { changed: true; what: string };

/** Watches hold windows against a reference; the first window becomes the reference when none is given. */
export class PhaseWatch {
  private ref: PhaseReference | null;
  private run: { dir: number; count: number } = { dir: 0, count: 0 };
  readonly history: { throughput_shift: number; power_shift: number }[] = [];

  constructor(
    ref: PhaseReference | null,
    private readonly rules: PhaseRules = DEFAULT_PHASE_RULES,
  ) {
    this.ref = ref;
  }

  push(w: PhaseWindow): PhaseVerdict {
    if (!this.ref) {
      this.ref = { throughput: w.throughput, power_w: w.power_w, throughput_sd: 0, power_sd: 0 };
      return { changed: false, shifted: 0 };
    }
    const r = this.ref;
    const dt = (w.throughput - r.throughput) / r.throughput;
    const dp = (w.power_w - r.power_w) / r.power_w;
    this.history.push({ throughput_shift: dt, power_shift: dp });
    const limT = Math.max(this.rules.min_shift, this.rules.sd_factor * r.throughput_sd);
    const limP = Math.max(this.rules.min_shift, this.rules.sd_factor * r.power_sd);
    // Direction: +-1 for throughput, +-2 for power, so a run of shifts must keep both its quantity and its sign.
    const dir = Math.abs(dt) > limT ? Math.sign(dt) : Math.abs(dp) > limP ? 2 * Math.sign(dp) : 0;
    if (dir === 0) this.run = { dir: 0, count: 0 };
    else if (dir === this.run.dir) this.run.count++;
    else this.run = { dir, count: 1 };
    if (this.run.count >= this.rules.persist) {
      const what = Math.abs(dir) === 1 ? `throughput ${dt > 0 ? 'rose' : 'fell'} ${(Math.abs(dt) * 100).toFixed(1)} %` : `power ${dp > 0 ? 'rose' : 'fell'} ${(Math.abs(dp) * 100).toFixed(1)} %`;
      return { changed: true, what: `${what} against the profile for ${this.run.count} windows in a row` };
    }
    return { changed: false, shifted: this.run.count };
  }
}
