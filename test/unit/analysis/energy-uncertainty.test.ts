import { describe, expect, it } from 'vitest';
import { deviceEnergyBound, totalEnergyBound } from '../../../src/core/analysis/energy-uncertainty';

describe('stated energy uncertainty (systematic sensor bound)', () => {
  it('energy counter at low power: the stated ±5 W over the window dominates, no method term', () => {
    // 60 s at 80 W = 4800 J: 5 W x 60 s = 300 J > 5 % x 4800 J = 240 J.
    const b = deviceEnergyBound({ energy_j: 4800, duration_s: 60, method: 'energy-counter delta' }, 'gpu');
    expect(b.uncertainty_j).toBeCloseTo(300, 9);
    expect(b.uncertainty_basis).toMatch(/NVML stated ±5 W over 60\.0 s/);
  });

  it('instant power under load: 5 % of the reading dominates', () => {
    // 10 s at 600 W = 6000 J: 5 % = 300 J > 5 W x 10 s = 50 J.
    const b = deviceEnergyBound({ energy_j: 6000, duration_s: 10, method: 'instant power, trapezoid' }, 'gpu');
    expect(b.uncertainty_j).toBeCloseTo(300, 9);
    expect(b.uncertainty_basis).toMatch(/±5 % of reading/);
  });

  it('1 s average over a phase of at least 8 s adds the method’s 2 %', () => {
    // 20 s at 500 W = 10000 J: sensor 500 J + method 200 J.
    const b = deviceEnergyBound({ energy_j: 10_000, duration_s: 20, method: '1 s average, boxcar tiles' }, 'gpu');
    expect(b.uncertainty_j).toBeCloseTo(700, 9);
  });

  it('1 s average under 8 s: the two edge seconds at the mean power instead', () => {
    // 4 s at 500 W = 2000 J: sensor 100 J (5 %) vs 20 J (5 W x 4 s) -> 100 J; method 2 s x 500 W = 1000 J.
    const b = deviceEnergyBound({ energy_j: 2000, duration_s: 4, method: '1 s average, boxcar tiles' }, 'gpu');
    expect(b.uncertainty_j).toBeCloseTo(1100, 9);
    expect(b.uncertainty_basis).toMatch(/under 8 s/);
  });

  it('no stated bound for non-GPU power, unknown methods or missing energy', () => {
    expect(deviceEnergyBound({ energy_j: 1000, duration_s: 10, method: 'energy-counter delta' }, 'node').uncertainty_j).toBeNull();
    expect(deviceEnergyBound({ energy_j: 1000, duration_s: 10, method: 'something else' }, 'gpu').uncertainty_j).toBeNull();
    expect(deviceEnergyBound({ energy_j: null, duration_s: 10, method: null }, 'gpu').uncertainty_j).toBeNull();
  });

  it('the total adds the devices’ bounds (worst case), and has none when one device has none', () => {
    const a = deviceEnergyBound({ energy_j: 4800, duration_s: 60, method: 'energy-counter delta' }, 'gpu');
    const c = deviceEnergyBound({ energy_j: 6000, duration_s: 10, method: 'instant power, trapezoid' }, 'gpu');
    const t = totalEnergyBound([a, c]);
    expect(t.uncertainty_j).toBeCloseTo(600, 9);
    expect(t.uncertainty_basis).toMatch(/not a statistical CI/);
    expect(totalEnergyBound([a, { uncertainty_j: null, uncertainty_basis: 'x' }]).uncertainty_j).toBeNull();
    expect(totalEnergyBound([]).uncertainty_j).toBeNull();
  });
});
