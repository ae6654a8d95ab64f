// Clocks vs cap: time-weighted mean SM and memory clock, and the share of time throttled by the SW power cap.
import { THROTTLE_SW_POWER_CAP } from '../../shared/device';
import type { ClockSummary, TimeWindow } from '../../shared/analysis';
import { inWindow, isReading, timeWeights, windowValid, type PowerSample } from './series';

function weightedMean(ts: number[], vs: number[], w: TimeWindow): number | null {
  if (ts.length === 0) return null;
  const wt = timeWeights(ts, w.start, w.end);
  let s = 0;
  let total = 0;
  for (let i = 0; i < ts.length; i++) {
    s += wt[i]! * vs[i]!;
    total += wt[i]!;
  }
  return total > 0 ? s / total : vs.reduce((a, b) => a + b, 0) / vs.length;
}

/** Clock summary of the samples of one or more devices inside the window (devices weigh equally). */
export function windowClocks(devices: readonly (readonly PowerSample[])[], window: TimeWindow | null): ClockSummary {
  if (!windowValid(window)) return { sm_mhz: null, mem_mhz: null, power_cap_throttled_share: null, samples: 0 };
  const sm: number[] = [];
  const mem: number[] = [];
  const thr: number[] = [];
  let samples = 0;
  for (const dev of devices) {
    const s = inWindow(dev, window);
    samples += s.length;
    const pick = (f: (x: PowerSample) => number | null | undefined) => {
      const ok = s.filter((x) => isReading(f(x)));
      return weightedMean(
        ok.map((x) => x.t),
        ok.map((x) => f(x) as number),
        window,
      );
    };
    const a = pick((x) => x.sm_clock_mhz);
    const b = pick((x) => x.mem_clock_mhz);
    const c = pick((x) => (Number.isInteger(x.throttle_reasons) && (x.throttle_reasons as number) >= 0 ? ((x.throttle_reasons as number) & THROTTLE_SW_POWER_CAP ? 1 : 0) : null));
    if (a !== null) sm.push(a);
    if (b !== null) mem.push(b);
    if (c !== null) thr.push(c);
  }
  const avg = (v: number[]) => (v.length ? v.reduce((x, y) => x + y, 0) / v.length : null);
  return { sm_mhz: avg(sm), mem_mhz: avg(mem), power_cap_throttled_share: avg(thr), samples };
}

/** Mean over the runs of one cap. */
export function combineClocks(runs: readonly ClockSummary[]): ClockSummary {
  const avg = (f: (c: ClockSummary) => number | null) => {
    const v = runs.map(f).filter((x): x is number => x !== null);
    return v.length ? v.reduce((x, y) => x + y, 0) / v.length : null;
  };
  return {
    sm_mhz: avg((c) => c.sm_mhz),
    mem_mhz: avg((c) => c.mem_mhz),
    power_cap_throttled_share: avg((c) => c.power_cap_throttled_share),
    samples: runs.reduce((s, c) => s + c.samples, 0),
  };
}
