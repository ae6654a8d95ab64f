// Energy from the 1 s average power alone, checked against the NVML energy counter of a real H200 capture
// (test/fixtures/h200-capture.csv: the average read once a second, the counter by a separate process).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boxcarEnergy } from '../../../src/core/analysis/average-power';
import { windowEnergy } from '../../../src/core/analysis/energy';
import type { PowerSample } from '../../../src/core/analysis/series';

const lines = readFileSync('test/fixtures/h200-capture.csv', 'utf8').split('\n');
const marks = lines
  .filter((l) => l.startsWith('# counter,'))
  .map((l) => {
    const [, name, t, e] = l.slice(2).split(',');
    return { name: name!, t: Number(t), j: Number(e) / 1000 };
  });
// Only the averaged readings: what a log of nvidia-smi power.draw holds.
const avgOnly: PowerSample[] = lines
  .filter((l) => /^\d/.test(l))
  .map((l) => l.split(','))
  .filter((f) => f[3] !== '')
  .map((f) => ({ t: Number(f[0]), power_w: Number(f[3]), power_kind: 'average' }));

interface Case {
  from: string;
  to: string;
  seconds: number;
  boxcar: number;
  shift: number;
  naive: number;
}
const cases: Case[] = [];
for (let i = 0; i < marks.length; i++)
  for (let j = i + 1; j < marks.length; j++) {
    const a = marks[i]!;
    const b = marks[j]!;
    if (b.t - a.t < 8) continue;
    const truth = b.j - a.j;
    const err = (opts: Parameters<typeof windowEnergy>[2]) => ((windowEnergy(avgOnly, { start: a.t, end: b.t }, opts).energy_j! - truth) / truth) * 100;
    cases.push({
      from: a.name,
      to: b.name,
      seconds: b.t - a.t,
      boxcar: err({}),
      shift: err({ average_method: 'shift', average_lag_s: 0.5 }),
      naive: err({ average_method: 'shift', average_lag_s: 0 }),
    });
  }

describe('energy from averaged power vs the H200 energy counter (every window of >= 8 s between counter readings)', () => {
  it('has the windows: loaded, idle after load, and across the load -> idle step', () => {
    expect(avgOnly.length).toBeGreaterThan(55);
    expect(cases.length).toBe(39);
  });

  it('is within 2 % of the counter on the loaded phase, the idle phase after it, and every window not starting at the step', () => {
    expect(Math.abs(cases.find((c) => c.from === 'load_40' && c.to === 'load_end')!.boxcar)).toBeLessThan(2);
    expect(Math.abs(cases.find((c) => c.from === 'load_end' && c.to === 'idle1_end')!.boxcar)).toBeLessThan(2);
    const off = cases.filter((c) => (c.from !== 'load_end' || c.seconds >= 20) && Math.abs(c.boxcar) >= 2);
    expect(off).toEqual([]);
  });

  it('on windows starting at the step it beats the naive and the half-second-shift integration', () => {
    const atStep = cases.filter((c) => c.from === 'load_end');
    expect(atStep.length).toBe(5);
    for (const c of atStep) {
      // Measured: -3.1 % over the 10 s after the step (instant power itself is -1.3 % there), -2.1 % over 15 s.
      expect(Math.abs(c.boxcar)).toBeLessThan(3.5);
      expect(Math.abs(c.boxcar)).toBeLessThan(Math.abs(c.naive));
      expect(Math.abs(c.boxcar)).toBeLessThan(Math.abs(c.shift));
    }
    // Naive integration of power.draw (as the seed scripts did): +18 % over the 10 s after the load.
    expect(atStep.find((c) => c.to === 'idle1_10')!.naive).toBeGreaterThan(15);
  });

  it('says which method and sensor it used', () => {
    const r = windowEnergy(avgOnly, { start: marks[0]!.t, end: marks[3]!.t });
    expect(r).toMatchObject({ sensor: 'average', method: '1 s average, boxcar tiles' });
    expect(r.warnings.join(' ')).toMatch(/mean of the second before it/);
  });
});

describe('boxcar tiles on synthetic averages', () => {
  // True power 100 W, a step to 500 W at t = 20.3; readings are exact 1 s means.
  const truth = (t: number) => (t < 20.3 ? 100 : 500);
  const mean = (x: number) => {
    let s = 0;
    for (let k = 0; k < 1000; k++) s += truth(x - 1 + (k + 0.5) / 1000);
    return s / 1000;
  };
  it('is exact over windows whose edges sit on flat power, for 1 Hz and 10 Hz readings', () => {
    for (const dt of [1, 0.1]) {
      const pts = [];
      for (let t = 0.37; t < 40; t += dt) pts.push({ t, v: mean(t) });
      const r = boxcarEnergy(pts, { start: 10.2, end: 30.6 })!;
      expect(r.energy_j).toBeCloseTo(100 * 10.1 + 500 * 10.3, 0);
    }
  });
  it('places a step inside a tile so a window starting right after it is exact', () => {
    const pts = [];
    for (let t = 0.5; t < 40; t += 1) pts.push({ t, v: mean(t) });
    // The tile (19.5, 20.5] holds the step at 20.3; the window starts at 20.4, after it.
    expect(boxcarEnergy(pts, { start: 20.4, end: 30.5 })!.energy_j).toBeCloseTo(500 * 10.1, 6);
  });
});

