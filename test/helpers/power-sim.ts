// Simulated GPU power for property tests: a true power on a 10 ms grid (plateaus with white noise and a slow
// wander), read as instant power or through a 1 s moving average (NVML power usage on Ampere and newer), at a
// chosen interval with timer jitter. The true energy between any two times is exact on the grid.
export interface Plateau {
  /** Seconds. */
  duration: number;
  level_w: number;
}

export interface SimOptions {
  plateaus: Plateau[];
  /** White noise of the true power, W (standard deviation, per 10 ms). */
  noise_w: number;
  /** Amplitude of a slow wander (AR(1), about 5 s correlation), W. */
  wander_w: number;
  seed: number;
}

const GRID = 0.01;

export class PowerSim {
  /** True power per 10 ms cell, cell k covering [k GRID, (k + 1) GRID). */
  readonly p: Float64Array;
  /** Prefix sums of energy, J: cum[k] is the energy of [0, k GRID). */
  private readonly cum: Float64Array;
  /** True step times, s. */
  readonly steps: number[];
  readonly duration: number;

  constructor(o: SimOptions) {
    let s = o.seed >>> 0 || 1;
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
    const gauss = () => Math.sqrt(-2 * Math.log(rnd())) * Math.cos(2 * Math.PI * rnd());
    this.duration = o.plateaus.reduce((a, p) => a + p.duration, 0);
    const n = Math.round(this.duration / GRID);
    this.p = new Float64Array(n);
    this.steps = [];
    let edge = 0;
    let k = 0;
    let wander = 0;
    const phi = Math.exp(-GRID / 5);
    for (const [i, pl] of o.plateaus.entries()) {
      if (i > 0) this.steps.push(edge);
      edge += pl.duration;
      for (; k < Math.min(n, Math.round(edge / GRID)); k++) {
        wander = phi * wander + Math.sqrt(1 - phi * phi) * gauss();
        this.p[k] = Math.max(0, pl.level_w + o.noise_w * gauss() + o.wander_w * wander);
      }
    }
    this.cum = new Float64Array(n + 1);
    for (let j = 0; j < n; j++) this.cum[j + 1] = this.cum[j]! + this.p[j]! * GRID;
  }

  /** True energy over [a, b], J (cells cut by an edge count in proportion). */
  energy(a: number, b: number): number {
    return this.cumAt(b) - this.cumAt(a);
  }

  private cumAt(x: number): number {
    const n = this.p.length;
    const c = Math.max(0, Math.min(n * GRID, x)) / GRID;
    const k = Math.min(n - 1, Math.floor(c));
    return this.cum[k]! + this.p[k]! * (c - k) * GRID;
  }

  /** Instant power at x. */
  instant(x: number): number {
    return this.p[Math.max(0, Math.min(this.p.length - 1, Math.floor(x / GRID)))]!;
  }

  /** The T-second moving average as read at x: mean power over (x + align - T, x + align]. */
  average(x: number, T = 1, align = 0): number {
    const hi = x + align;
    const lo = Math.max(0, hi - T);
    return hi > lo ? this.energy(lo, hi) / (hi - lo) : this.instant(x);
  }

  /** Reading times from `from` to the end, every `dt` s with +-jitter * dt of timer noise. */
  times(dt: number, jitter: number, seed: number, from = 0): number[] {
    let s = seed >>> 0 || 7;
    const rnd = () => ((s = (Math.imul(s, 22695477) + 1) >>> 0) + 0.5) / 4294967296;
    const out: number[] = [];
    for (let i = 0; ; i++) {
      const x = from + i * dt + (rnd() - 0.5) * 2 * jitter * dt;
      if (x > this.duration) return out;
      if (x >= 0) out.push(x);
    }
  }
}
