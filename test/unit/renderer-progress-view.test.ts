import { describe, expect, it } from 'vitest';
import { progressView } from '../../src/renderer/lib/progress-view';

const ev = (fraction: number, runs_done: number) => ({ sweep_id: 1, run_id: 1, runs_done, run_count: 12, workload: 'w', cap_w: 300, repetition: 1, phase: 'measure' as const, fraction });

describe('console progress line', () => {
  it('a finished sweep read from the store (no live events) says 12 of 12 at 100 %', () => {
    expect(progressView({ status: 'done', run_count: 12, runs_done: 12 }, null, null)).toMatchObject({ fraction: 1, text: '12 of 12 runs done' });
  });
  it('a cancelled sweep says so and shows the share that ran, not 100 %', () => {
    const v = progressView({ status: 'running', run_count: 12, runs_done: 2 }, ev(0.27, 3), 'cancelled');
    expect(v).toMatchObject({ fraction: 0.25, text: 'cancelled after 3 of 12 runs', status: 'cancelled' });
  });
  it('a running sweep never shows less than the highest fraction seen', () => {
    expect(progressView({ status: 'running', run_count: 12, runs_done: 3 }, ev(0.3, 3), null, 0.33).fraction).toBe(0.33);
  });
});
