// Issue #25, finding 1: a best cap from one valid cap, and a slowdown against a reference that was not valid.
// A short sweep (300/500/700 W, 5 s warm-up, 10 s window) whose 500 and 700 W runs still ramp in the window.
import { describe, expect, it } from 'vitest';
import { analyzeSweep } from '../../../src/core/analysis/analyze';
import { selectOptimum, slowdownReference, type OptimumPoint } from '../../../src/core/analysis/optimum';
import { SELECTORS } from '../../../src/shared/analysis';
import { rampRun, shortSweep } from './synth';
import { answerFix, neededWarmup } from '../../../src/core/analysis/answer-fix';

const analyse = () => analyzeSweep({ runs: shortSweep(), overhead_w: 100, default_limits: { 'H100 SXM (simulated)': 700 } });

describe('a short sweep with 1 of 3 caps valid has no headline best cap (issue #25, finding 1)', () => {
  it('the ramping caps are flagged out, the settled one is not', () => {
    const g = analyse().groups[0]!;
    expect(g.caps.map((c) => c.eligible)).toEqual([true, false, false]);
    for (const c of g.caps.slice(1)) expect(c.flags.some((f) => f === 'no-steady-state' || f === 'warmup-in-window')).toBe(true);
  });
  it('every selector: no cap, the basis "1 of 3 caps valid", the reason and a fix derived from the runs\' ramp', () => {
    const g = analyse().groups[0]!;
    for (const s of SELECTORS) {
      const o = g.optima[s];
      expect(o.cap_w, s).toBeNull();
      expect(o.value).toBeNull();
      expect(o.basis).toBe('1 of 3 caps valid');
      expect(o.valid_caps).toEqual([300]);
      expect(o.cap_count).toBe(3);
      expect(o.no_answer_reason).toMatch(/only 1 of 3 caps valid \(300 W\): a best cap needs at least 2/);
      // The flagged runs were still ramping at the window's end (15 s after the first step): at least twice that.
      expect(o.fix).toMatch(/^warm-up too short for vit_l_16: at least ~(\d+) s/);
      const needed = Number(/~(\d+) s/.exec(o.fix!)![1]);
      expect(needed).toBeGreaterThanOrEqual(30);
      expect(o.fix).toMatch(/the plan's was 5 s/);
    }
    expect(g.best.cap_w).toBeNull();
  });
  it('no slowdown against the 700 W reference it did not validly measure, in the JSON', () => {
    const g = analyse().groups[0]!;
    expect(g.reference).toMatchObject({ cap_w: 700, valid: false, throughput: null });
    expect(g.reference!.reason).toMatch(/reference cap 700 W .* is not valid/);
    const o = g.optima['min-energy-slowdown'];
    expect(o.scores).toEqual([]);
    // Before: reference_cap_w 700 with slowdown 0 ("taken as the only cap measured") at 300 W, 24 % slower in truth.
    expect(JSON.stringify(o)).not.toMatch(/taken as the only cap/);
  });
  it('with 2 of 3 valid and the 700 W reference flagged: other selectors answer with their basis, min-energy-slowdown says why not', () => {
    const runs = [rampRun(1, 300, 192.2, 0.3, 1000), rampRun(2, 500, 240, 0.3, 2000), rampRun(3, 700, 253.6, 6, 3000)];
    const g = analyzeSweep({ runs, overhead_w: 100, default_limits: { 'H100 SXM (simulated)': 700 } }).groups[0]!;
    expect(g.optima['max-efficiency'].cap_w).not.toBeNull();
    expect(g.optima['max-efficiency'].basis).toBe('2 of 3 caps valid');
    const s = g.optima['min-energy-slowdown'];
    expect(s.cap_w).toBeNull();
    expect(s.no_answer_reason).toMatch(/reference cap 700 W \(default limit, measured\) is not valid/);
    expect(s.fix).toMatch(/warm-up too short/);
    // No selector reports a slowdown against a reference that is not valid.
    for (const sel of SELECTORS) for (const sc of g.optima[sel].scores) expect(sc.slowdown).toBeNull();
  });
});

describe('one definition of the slowdown reference', () => {
  const pt = (cap_w: number, T: number, eligible = true): OptimumPoint => ({ cap_w, eligible, excluded_reason: eligible ? null : 'no-steady-state', runs: [{ throughput: T, efficiency: T / cap_w }] });
  it('a default limit on the grid is valid only where that cap is', () => {
    expect(slowdownReference([pt(300, 190), pt(700, 250)], 700)).toMatchObject({ cap_w: 700, throughput: 250, valid: true });
    expect(slowdownReference([pt(300, 190), pt(700, 250, false)], 700)).toMatchObject({ cap_w: 700, throughput: null, valid: false });
  });
  it('without a default limit the highest cap of the sweep is the reference, flagged or not', () => {
    expect(slowdownReference([pt(300, 190), pt(500, 230), pt(700, 250, false)], null)).toMatchObject({ cap_w: 700, valid: false });
  });
  it('off the grid: extrapolated from two valid caps, not from one', () => {
    expect(slowdownReference([pt(300, 190), pt(500, 230)], 700)).toMatchObject({ cap_w: 700, valid: true, basis: 'default limit, extrapolated linearly from 300 and 500 W' });
    expect(slowdownReference([pt(300, 190)], 700)).toMatchObject({ valid: false });
  });
  it('the minimum of valid caps is an option', () => {
    const one = [pt(300, 190), pt(500, 230, false)];
    expect(selectOptimum(one, 'max-efficiency').cap_w).toBeNull();
    expect(selectOptimum(one, 'max-efficiency', { min_valid_caps: 1 }).cap_w).toBe(300);
  });
});

describe('the fix comes from what the runs measured', () => {
  type R = Parameters<typeof neededWarmup>[0][number];
  const run = (flags: string[], first: number, start: number, end: number, warmupEnd: number | null) =>
    ({ flags, window: { start, end }, steady_state: { first_step_t: first, warmup_end: warmupEnd } }) as unknown as R;
  it('a detected warm-up end inside the window: that ramp with 50 % margin, rounded up to 5 s', () => {
    // First step at 0, window 5-15 s, warm-up detected to end at 12 s: 18 s -> 20 s.
    expect(neededWarmup([run(['warmup-in-window'], 0, 5, 15, 12)])).toEqual({ needed_s: 20, used_s: 5, ramp_s: 12, settled: true });
  });
  it('never settled: at least twice the time to the window\'s end; above a minute in 10 s steps', () => {
    expect(neededWarmup([run(['no-steady-state'], 0, 20, 40, null)])).toMatchObject({ needed_s: 80, settled: false });
  });
  it('runs without a ramp flag ask for nothing', () => {
    expect(neededWarmup([run(['single-repetition'], 0, 5, 15, 3)])).toBeNull();
    expect(answerFix('w', [run(['single-repetition'], 0, 5, 15, 3)], [])).toBe('measure at least 2 caps');
  });
});
