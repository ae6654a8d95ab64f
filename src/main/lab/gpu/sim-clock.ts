// Simulated time for the simulated backend and its workload processes. At real epoch second `origin` simulated
// time is `start` (= origin unless the clock had to start later, after an earlier sweep's simulated time); after
// that simulated time runs `speedup` times faster. Every process that shares a serialised clock
// (`ORIGIN:SPEEDUP[:START]`, passed to children in CAPLAB_SIM_CLOCK) agrees on simulated time.

export const SIM_CLOCK_ENV = 'CAPLAB_SIM_CLOCK';

export class SimClock {
  constructor(
    readonly origin: number,
    readonly speedup: number,
    readonly start: number = origin,
  ) {
    if (!Number.isFinite(origin) || !Number.isFinite(start) || !(speedup > 0) || !Number.isFinite(speedup)) {
      throw new Error(`invalid simulated clock ${origin}:${speedup} (want ORIGIN:SPEEDUP, speedup > 0)`);
    }
  }

  /** A clock that runs at real speed. */
  static realTime(): SimClock {
    return new SimClock(Date.now() / 1000, 1);
  }

  /**
   * A clock starting now, at real time or at `floor` (simulated time an earlier clock already reached) if that
   * is later (by a millisecond, so no two sweeps share a timestamp): simulated time on a device never runs
   * backwards from one sweep to the next.
   */
  static startingAfter(floor: number, speedup: number, realNow = Date.now() / 1000): SimClock {
    return new SimClock(realNow, speedup, Math.max(realNow, floor + 0.001));
  }

  /** Parses `ORIGIN:SPEEDUP[:START]` as written by toString(). */
  static parse(text: string): SimClock {
    const m = /^(-?\d+(?:\.\d+)?):(\d+(?:\.\d+)?)(?::(-?\d+(?:\.\d+)?))?$/.exec(text.trim());
    if (!m) throw new Error(`invalid simulated clock "${text}" (want ORIGIN:SPEEDUP[:START], e.g. 1767225600.5:50)`);
    return new SimClock(Number(m[1]), Number(m[2]), m[3] === undefined ? undefined : Number(m[3]));
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
    return this.start + (r - this.origin) * this.speedup;
  }

  /** Real epoch second at which simulated time reaches t. */
  realAt(t: number): number {
    return this.origin + (t - this.start) / this.speedup;
  }

  toString(): string {
    return this.start === this.origin ? `${this.origin}:${this.speedup}` : `${this.origin}:${this.speedup}:${this.start}`;
  }
}
