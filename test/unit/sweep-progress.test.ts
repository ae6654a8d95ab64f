import { describe, expect, it } from 'vitest';
import { SweepProgressMeter } from '../../src/core/progress';

describe('sweep progress meter', () => {
  it('counts work done over work planned through every phase of every run, never backwards', () => {
    const m = new SweepProgressMeter();
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) for (const p of ['setting-cap', 'warmup', 'measure', 'cooldown'] as const) seen.push(m.at(i, p, 6));
    for (let k = 1; k < seen.length; k++) expect(seen[k]!).toBeGreaterThanOrEqual(seen[k - 1]!);
    expect(seen[0]).toBe(0);
    // Run 3's cool-down is just under half; run 4 of 6 starting is exactly half (the cool-down used to say 67 %).
    expect(seen[11]!).toBeCloseTo((2 + 0.95) / 6, 9);
    expect(seen[12]).toBe(0.5);
    expect(seen.at(-1)!).toBeLessThan(1);
  });

  it('holds when refinement adds runs instead of dropping', () => {
    const m = new SweepProgressMeter();
    const before = m.at(5, 'cooldown', 6);
    expect(m.at(6, 'setting-cap', 10)).toBe(before);
    expect(m.at(9, 'cooldown', 10)).toBeGreaterThan(before);
  });
});
