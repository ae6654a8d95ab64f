import { describe, expect, it } from 'vitest';
import { tickLabel } from '../../src/renderer/lib/tick-label';

describe('live trace tick labels', () => {
  it('gives neighbouring ticks different labels at any step (a 50 s step past 1,000 s read 1.5k twice)', () => {
    const labels = [1400, 1450, 1500, 1550, 1600].map((v) => tickLabel(v, 50));
    expect(labels).toEqual(['1.4k', '1.45k', '1.5k', '1.55k', '1.6k']);
    for (const step of [0.2, 0.5, 1, 2, 5, 20, 50, 100, 200, 500, 1000, 2000]) {
      const values = Array.from({ length: 8 }, (_, i) => 900 + i * step);
      const out = values.map((v) => tickLabel(v, step));
      expect(new Set(out).size, `step ${step}: ${out.join(' ')}`).toBe(out.length);
    }
  });

  it('keeps whole numbers whole and drops trailing zeros', () => {
    expect(tickLabel(2000, 1000)).toBe('2k');
    expect(tickLabel(20000, 1000)).toBe('20k');
    expect(tickLabel(600, 200)).toBe('600');
    expect(tickLabel(0, 100)).toBe('0');
    expect(tickLabel(0.5, 0.5)).toBe('0.5');
    expect(tickLabel(1.5, 0.25)).toBe('1.5');
  });
});
