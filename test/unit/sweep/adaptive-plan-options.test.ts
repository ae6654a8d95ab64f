import { describe, expect, it } from 'vitest';
import { Plan, planRunCount, sequentialRunBudget } from '../../../src/shared/plan';
import { estimateAdaptiveSeconds, labelFirstPass } from '../../../src/core/sweep/adaptive-summary';
import { estimatePlanSeconds, scheduleRuns } from '../../../src/core/schedule';

const base = { workloads: [{ id: 'vit_l_16' }], caps: [250, 300, 350, 400] };

describe('plan option adaptive', () => {
  it('is off unless named; each part takes its defaults when named', () => {
    expect(Plan.parse(base).adaptive).toBeUndefined();
    const p = Plan.parse({ ...base, adaptive: { window: {}, cooldown: {}, repetitions: {} } });
    expect(p.adaptive).toEqual({
      window: { ci_target: 0.01, min_s: 10 },
      cooldown: { temp_band_c: 5, power_band_w: 20, flat_c_per_min: 0.5, check_s: 2 },
      repetitions: { max_per_cap: 5, pool_single: true },
      margin: 0.02,
      confidence: 0.95,
      budget: {},
    });
    expect(Plan.parse({ ...base, adaptive: {} }).adaptive).toEqual({ margin: 0.02, confidence: 0.95, budget: {} });
  });

  it('refuses bad values, naming the field', () => {
    const bad = (adaptive: unknown) => {
      const r = Plan.safeParse({ ...base, adaptive });
      expect(r.success).toBe(false);
      return r.error!.issues.map((i) => i.path.join('.')).join(' ');
    };
    expect(bad({ window: { ci_target: 0 } })).toBe('adaptive.window.ci_target');
    expect(bad({ repetitions: { max_per_cap: 1 } })).toBe('adaptive.repetitions.max_per_cap');
    expect(bad({ confidence: 1 })).toBe('adaptive.confidence');
    expect(bad({ budget: { gpu_s: -1 } })).toBe('adaptive.budget.gpu_s');
    expect(bad({ budget: { runs: 1.5 } })).toBe('adaptive.budget.runs');
    expect(bad({ windows: {} })).toBe('adaptive');
  });

  it('counts what sequential repetitions may add towards the plan limit: budget.runs, else up to max_per_cap', () => {
    const p = Plan.parse({ ...base, repetitions: 2, adaptive: { repetitions: { max_per_cap: 5 } } });
    expect(sequentialRunBudget(p, 4)).toBe(4 * 3);
    expect(planRunCount(p)).toBe(4 * 2 + 12);
    const q = Plan.parse({ ...base, repetitions: 2, adaptive: { repetitions: { max_per_cap: 5 }, budget: { runs: 5 } } });
    expect(planRunCount(q)).toBe(8 + 5);
    const huge = Plan.safeParse({ workloads: [{ id: 'w' }], caps: { from: 1, to: 1000, step: 1 }, adaptive: { repetitions: { max_per_cap: 20 } } });
    expect(huge.success).toBe(false);
    expect(huge.error!.issues[0]!.message).toContain('+ sequential repetitions');
  });

  it('first-pass runs say why they are done; plans without adaptivity keep no reason', () => {
    const p = Plan.parse({ ...base, adaptive: { repetitions: {} } });
    expect(labelFirstPass(scheduleRuns(p), p).map((r) => r.reason)).toEqual(Array(4).fill('first pass (the plan grid), repetition 1'));
    const plain = Plan.parse(base);
    expect(labelFirstPass(scheduleRuns(plain), plain).every((r) => r.reason === undefined)).toBe(true);
  });

  it('the adaptive estimate sits below the fixed one, never above its own bound', () => {
    const p = Plan.parse({ ...base, window: { seconds: 120 }, cooldown_s: 120, adaptive: { window: {}, cooldown: {}, repetitions: { max_per_cap: 3 } } });
    const e = estimateAdaptiveSeconds(p);
    expect(e.adaptive_s).toBeLessThan(e.fixed_s);
    expect(e.adaptive_s).toBeLessThanOrEqual(e.max_s);
    // Without sequential repetitions the fixed figure is the plan's own estimate.
    const f = Plan.parse({ ...base, window: { seconds: 120 }, cooldown_s: 120, adaptive: { window: {} } });
    expect(estimateAdaptiveSeconds(f).fixed_s).toBe(estimatePlanSeconds(f));
    const capped = Plan.parse({ ...base, adaptive: { repetitions: {}, budget: { gpu_s: 100 } } });
    expect(estimateAdaptiveSeconds(capped).max_s).toBe(100);
  });
});
