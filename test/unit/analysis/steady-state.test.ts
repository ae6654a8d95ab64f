import { describe, expect, it } from 'vitest';
import { detectSteadyState, mser } from '../../../src/core/analysis/steady-state';
import { runSteadyState } from '../../../src/core/analysis/run';
import { AnalysisRun } from '../../../src/shared/analysis';
import { powerSeries } from './synth';

// Deterministic "noise": a fixed pseudo-random sequence in [-1, 1].
function noise(n: number, seed = 7): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return (x / 2147483648) * 2 - 1;
  });
}

describe('MSER-5', () => {
  it('a constant series needs no truncation', () => {
    expect(mser(Array(100).fill(700))!.truncate_batches).toBe(0);
  });
  it('a step at a batch boundary is truncated exactly there', () => {
    // 50 points at 0, then 450 at 1: batches 0..9 are 0, MSER(10) = 0 is the first minimum -> 50 points.
    const r = mser([...Array(50).fill(0), ...Array(450).fill(1)])!;
    expect(r.truncate_index).toBe(50);
    expect(r.batches).toBe(100);
  });
  it('fewer than 2 batches: null', () => {
    expect(mser([1, 2, 3])).toBeNull();
  });
});

describe('detectSteadyState', () => {
  const t = Array.from({ length: 600 }, (_, i) => i * 0.1);
  it('exponential warm-up with noise: truncates near the end of the transient', () => {
    // power rises 400 -> 700 W with time constant 3 s (within 1 W of 700 after ~17 s) + 2 W noise
    const nz = noise(600);
    const v = t.map((x, i) => 700 - 300 * Math.exp(-x / 3) + 2 * nz[i]!);
    const r = detectSteadyState(t, v);
    expect(r.reached).toBe(true);
    expect(r.end_t!).toBeGreaterThan(8);
    expect(r.end_t!).toBeLessThan(25);
  });
  it('a run that never settles (linear drift) is flagged', () => {
    const r = detectSteadyState(t, t.map((x) => 100 + 5 * x));
    expect(r.reached).toBe(false);
    expect(r.reason).toMatch(/reaches half the series/);
  });
  it('too short a series is flagged, not guessed', () => {
    const r = detectSteadyState([0, 1, 2], [1, 2, 3]);
    expect(r).toMatchObject({ reached: false, end_t: null });
    expect(r.reason).toMatch(/too short/);
    expect(detectSteadyState([], []).reason).toBe('no data');
  });
});

describe('runSteadyState on a run', () => {
  const base = { run_id: 1, workload: 'w', cap_w: 300 };
  it('warm-up before the window: reached, not in the window', () => {
    const run = AnalysisRun.parse({
      ...base,
      window: { start: 20, end: 80 },
      steps: Array.from({ length: 80 }, (_, i) => ({ t: i + 1, units: i < 15 ? 10 + i * 6 : 100, dt: 1 })),
      devices: [{ device_id: 'g0', samples: powerSeries((x) => (x < 15 ? 150 + 10 * x : 300), 0, 80, 0.1) }],
    });
    const s = runSteadyState(run);
    expect(s.reached).toBe(true);
    expect(s.warmup_end!).toBeGreaterThanOrEqual(13);
    expect(s.warmup_end!).toBeLessThanOrEqual(20);
    expect(s.warmup_in_window).toBe(false);
    expect(s.method).toBe('MSER-5');
  });
  it('warm-up running into the window is reported', () => {
    const run = AnalysisRun.parse({
      ...base,
      window: { start: 5, end: 80 },
      devices: [{ device_id: 'g0', samples: powerSeries((x) => (x < 30 ? 100 + 5 * x : 250), 0, 80, 0.1) }],
    });
    const s = runSteadyState(run);
    expect(s.warmup_in_window).toBe(true);
    expect(s.notes.join()).toMatch(/into the measurement window/);
  });
  it('idle time before the workload starts (model loading) is not warm-up', () => {
    // 60 s idle at 70 W, then the workload: steps from t = 60, power 600 W; window 75..105
    const run = AnalysisRun.parse({
      ...base,
      started_at: 0,
      window: { start: 75, end: 105 },
      steps: Array.from({ length: 45 }, (_, i) => ({ t: 61 + i, units: 100, dt: 1 })),
      devices: [{ device_id: 'g0', samples: powerSeries((x) => (x < 60 ? 70 : 600), 0, 106, 0.1) }],
    });
    const s = runSteadyState(run);
    expect(s.reached).toBe(true);
    expect(s.unsettled).toBe(false);
    expect(s.warmup_end!).toBeGreaterThanOrEqual(60);
    expect(s.warmup_end!).toBeLessThan(62);
  });
  it('a slow creep MSER cannot settle only matters when the window moves by more than 2 %', () => {
    const mk = (creep: number) =>
      AnalysisRun.parse({
        ...base,
        window: { start: 20, end: 80 },
        devices: [{ device_id: 'g0', samples: powerSeries((x) => 400 * (1 + (creep * x) / 80), 0, 80, 0.1) }],
      });
    // +0.5 % over the window: MSER runs to its limit, but the window mean is barely affected
    const small = runSteadyState(mk(0.005 * (80 / 60)));
    expect(small.reached).toBe(false);
    expect(small.unsettled).toBe(false);
    expect(small.window_trend!).toBeCloseTo(0.005 / (1 + 0.005 * (50 / 60)), 4);
    // +6 % over the window: unsettled
    const big = runSteadyState(mk(0.06 * (80 / 60)));
    expect(big.unsettled).toBe(true);
    expect(big.window_trend!).toBeGreaterThan(0.05);
  });
  it('no series at all', () => {
    const s = runSteadyState(AnalysisRun.parse({ ...base, window: { start: 0, end: 1 } }));
    expect(s).toMatchObject({ reached: null, warmup_end: null, throughput: null, power: null });
  });
});
