import { describe, expect, it } from 'vitest';
import { RunWindow } from '../../../src/main/lab/sweep/run-window';

describe('run window', () => {
  it('measures between step ends after a warm-up in seconds', () => {
    const w = new RunWindow(100, { seconds: 5 }, { seconds: 10 });
    const crossed: (string | null)[] = [];
    for (let t = 101; t <= 120; t++) crossed.push(w.step({ t, units: 50, dt: 1 }));
    expect(w.warmupEnd).toBe(105);
    expect(w.measureEnd).toBe(115);
    expect(w.unitsInWindow).toBe(500);
    expect(w.rate()).toBe(50);
    expect(crossed.filter(Boolean)).toEqual(['measure-start', 'measure-end']);
    expect(w.phase).toBe('complete');
  });

  it('counts warm-up and window in steps', () => {
    const w = new RunWindow(0, { steps: 3 }, { steps: 4 });
    for (let n = 1; n <= 10; n++) w.step({ t: n * 0.5, units: 10, dt: 0.5 });
    expect(w.warmupEnd).toBe(1.5);
    expect(w.measureEnd).toBe(3.5);
    expect(w.stepsInWindow).toBe(4);
    expect(w.rate()).toBeCloseTo(20);
  });

  it('has no rate before the window completes', () => {
    const w = new RunWindow(0, { seconds: 1 }, { seconds: 100 });
    w.step({ t: 2, units: 1, dt: 1 });
    w.step({ t: 3, units: 1, dt: 1 });
    expect(w.phase).toBe('measure');
    expect(w.rate()).toBeNull();
  });
});
