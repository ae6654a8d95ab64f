import { describe, expect, it } from 'vitest';
import { paretoFront, paretoFrontIndices } from '../../../src/core/analysis/pareto';
import { compareSweeps } from '../../../src/core/analysis/compare';
import { overheadSensitivity } from '../../../src/core/analysis/sensitivity';
import { analyzeSweep } from '../../../src/core/analysis/analyze';
import { Comparison } from '../../../src/shared/analysis';
import { H100_CAPS, H100_VIT, paperSweep } from './synth';

describe('Pareto front', () => {
  it('keeps non-dominated points (maximise both), equal points both, drops non-finite', () => {
    const pts = [
      { x: 1, y: 5 },
      { x: 2, y: 4 },
      { x: 2, y: 3 }, // dominated by (2, 4)
      { x: 3, y: 1 },
      { x: 0.5, y: 5 }, // dominated by (1, 5)
      { x: 3, y: 1 }, // equal to index 3: kept
      { x: NaN, y: 9 },
    ];
    expect(paretoFrontIndices(pts)).toEqual([0, 1, 3, 5]);
  });
  it('points without data are left out', () => {
    const r = paretoFront([
      { label: 'a', cap_w: 100, throughput: 1, efficiency: null },
      { label: 'b', cap_w: 200, throughput: 2, efficiency: 1 },
    ]);
    expect(r.points.map((p) => p.label)).toEqual(['b']);
    expect(r.front).toHaveLength(1);
  });
});

describe('sensitivity input edge cases', () => {
  it('no points gives null best caps, not a crash', () => {
    const s = overheadSensitivity([], { from_w: 0, to_w: 20, step_w: 10 });
    expect(s.curve.map((r) => r.overhead_w)).toEqual([0, 10, 20]);
    expect(s.curve[0]!.best['max-efficiency']).toBeNull();
    expect(s.changes).toEqual([]);
  });
  it('a range that does not fall on the step still ends at to_w', () => {
    const s = overheadSensitivity([], { from_w: 0, to_w: 25, step_w: 10 });
    expect(s.curve.map((r) => r.overhead_w)).toEqual([0, 10, 20, 25]);
  });
});

describe('comparison of sweeps on the same workload', () => {
  // A "faster GPU": 10 % more images/s at every cap, same power; and it lacks the 700 W point.
  const h100 = analyzeSweep({ runs: paperSweep({ workload: 'vit', throughput: H100_VIT, factors: [0.99, 1, 1.01] }) }).groups[0]!;
  const fasterRuns = paperSweep({ workload: 'vit', throughput: H100_VIT.map((t) => t * 1.1), factors: [0.99, 1, 1.01], device_model: 'H200' }).filter((r) => r.cap_w !== 700);
  const faster = analyzeSweep({ runs: fasterRuns }).groups[0]!;
  const c = compareSweeps([
    { label: 'H100', group: h100 },
    { label: 'H200', group: faster },
  ]);
  it('aligns by cap with relative differences against the baseline', () => {
    expect(() => Comparison.parse(c)).not.toThrow();
    expect(c.baseline).toBe('H100');
    expect(c.rows.map((r) => r.cap_w)).toEqual(H100_CAPS);
    for (const row of c.rows.slice(0, 5)) {
      const [a, b] = row.entries;
      expect(a!.rel_throughput).toBe(0);
      expect(b!.rel_throughput).toBeCloseTo(0.1, 9);
      expect(b!.rel_efficiency).toBeCloseTo(0.1, 9);
      expect(b!.rel_power).toBeCloseTo(0, 9);
    }
    const last = c.rows.at(-1)!.entries[1]!;
    expect(last).toMatchObject({ throughput: null, rel_throughput: null, eligible: false });
    expect(c.notes.join()).toMatch(/not measured in every sweep: 700 W/);
  });
  it('reports each sweep\'s best caps and a joint Pareto front', () => {
    expect(c.sweeps.map((s) => s.best['max-efficiency'])).toEqual([300, 300]);
    expect(c.sweeps[1]!.peak_efficiency).toBeCloseTo((214.9 * 1.1) / 391, 6);
    // Every H200 point beats the H100 point at the same cap; the H100 700 W point is the fastest of all? 305.97 < 297.79*1.1 = 327.6: no.
    expect(c.pareto.front.every((p) => p.label.startsWith('H200'))).toBe(true);
  });
  it('nothing to compare is an error', () => {
    expect(() => compareSweeps([])).toThrow(RangeError);
  });
});
