// Simulated time for the simulated backend and its workload processes. Simulated and real time coincide at
// `origin` (epoch seconds); after that simulated time runs `speedup` times faster. Every process that shares a
// serialised clock (`ORIGIN:SPEEDUP`, passed to children in CAPLAB_SIM_CLOCK) agrees on simulated time.

export const SIM_CLOCK_ENV = 'CAPLAB_SIM_CLOCK';

export class SimClock {
  constructor(
    readonly origin: number,
    readonly speedup: number,
  ) {
    if (!Number.isFinite(origin) || !(speedup > 0) || !Number.isFinite(speedup)) {
      throw new Error(`invalid simulated clock ${origin}:${speedup} (want ORIGIN:SPEEDUP, speedup > 0)`);
    }
  }

  /** A clock that runs at real speed. */
  static realTime(): SimClock {
    return new SimClock(Date.now() / 1000, 1);
  }

  /** Parses `ORIGIN:SPEEDUP` as written by toString(). */
  static parse(text: string): SimClock {
    const m = /^(-?\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(text.trim());
    if (!m) throw new Error(`invalid simulated clock "${text}" (want ORIGIN:SPEEDUP, e.g. 1767225600.5:50)`);
    return new SimClock(Number(m[1]), Number(m[2]));
  }

  static fromEnv(env: NodeJS.ProcessEnv): SimClock | null {
    const text = env[SIM_CLOCK_ENV];
    return text ? SimClock.parse(text) : null;
  }

  /** Simulated epoch seconds now. */
  now(): number {
    return this.atReal(Date.now() / 1000);
  }

  /** Simulated time at real epoch second r. */
  atReal(r: number): number {
    return this.origin + (r - this.origin) * this.speedup;
  }

  /** Real epoch second at which simulated time reaches t. */
  realAt(t: number): number {
    return this.origin + (t - this.origin) / this.speedup;
  }

  toString(): string {
    return `${this.origin}:${this.speedup}`;
  }
}
