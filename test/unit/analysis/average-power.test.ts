// Energy from the 1 s average power alone, checked against the NVML energy counter of a real H200 capture
// (test/fixtures/h200-capture.csv: the average read once a second, the counter by a separate process).
import { describe, expect, it } from 'vitest';
import { AVERAGE_ALIGN_S, boxcarEnergy, fitAverageAlign } from '../../../src/core/analysis/average-power';
import { windowEnergy } from '../../../src/core/analysis/energy';
import { averagePowerCases, loadH200Capture } from '../../helpers/h200-capture';

const cap = loadH200Capture();
const cases = averagePowerCases(cap);

describe('energy from averaged power vs the H200 energy counter (every window of >= 8 s between counter readings)', () => {
  it('has the windows: loaded, idle after load, and across the load -> idle step', () => {
    expect(cap.avgOnly.length).toBeGreaterThan(55);
    expect(cases.length).toBe(39);
    expect(cases.filter((c) => c.from === 'load_end').length).toBe(5);
  });

  it('the alignment comes from the instant channel alone (not the counter) and is the constant used', () => {
    const pts = (kind: 'instant' | 'average') =>
      cap.samples.filter((s) => (kind === 'instant' ? s.power_w : s.power_avg_w) !== null).map((s) => ({ t: s.t, v: (kind === 'instant' ? s.power_w : s.power_avg_w)! }));
    const fit = fitAverageAlign(pts('instant'), pts('average'))!;
    expect(fit).toBeCloseTo(AVERAGE_ALIGN_S, 5);
  });

  it('is within 2 % of the counter on every window, including those starting exactly at the load -> idle step', () => {
    const off = cases.filter((c) => Math.abs(c.boxcar) >= 2).map((c) => `${c.from} -> ${c.to}: ${c.boxcar.toFixed(2)} %`);
    expect(off).toEqual([]);
  });

  it('without the alignment the window starting at the step is off by more than 2 %; naive and 0.5 s shift are worse still', () => {
    const atStep = cases.find((c) => c.from === 'load_end' && c.to === 'idle1_10')!;
    expect(atStep.unaligned).toBeLessThan(-2);
    expect(Math.abs(atStep.boxcar)).toBeLessThan(Math.abs(atStep.unaligned));
    for (const c of cases.filter((x) => x.from === 'load_end')) {
      expect(Math.abs(c.boxcar)).toBeLessThan(Math.abs(c.naive));
      expect(Math.abs(c.boxcar)).toBeLessThan(Math.abs(c.shift));
    }
    // Naive integration of power.draw (as the seed scripts did): +18 % over the 10 s after the load.
    expect(atStep.naive).toBeGreaterThan(15);
  });

  it('says which method and sensor it used', () => {
    const r = windowEnergy(cap.avgOnly, { start: cap.marks[0]!.t, end: cap.marks[3]!.t });
    expect(r).toMatchObject({ sensor: 'average', method: '1 s average, boxcar tiles' });
    expect(r.warnings.join(' ')).toMatch(/mean of the second before it, aligned 0.07 s later/);
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

