import { describe, expect, it } from 'vitest';
import { defaultForm, formToPlan, planToForm } from '../../src/renderer/lib/plan-form';
import { Plan } from '../../src/shared/plan';

describe('designer form: plan adaptive', () => {
  it('is left out of the plan while no adaptive part is on', () => {
    expect(formToPlan(defaultForm())).not.toHaveProperty('adaptive');
  });

  it('round-trips every adaptive field through the plan, budget 0 meaning none', () => {
    const f = defaultForm();
    f.stopEarly = { ...f.stopEarly, window: true, ci_target_pct: 0.5, min_s: 15, cooldown: true, repetitions: true, max_per_cap: 4, pool_single: false, margin_pct: 3, confidence_pct: 90, budget_gpu_h: 1.5, budget_runs: 12 };
    const plan = Plan.parse(formToPlan(f));
    expect(plan.adaptive).toEqual({
      window: { ci_target: 0.005, min_s: 15 },
      cooldown: { temp_band_c: 5, power_band_w: 20, flat_c_per_min: 0.5, check_s: 2 },
      repetitions: { max_per_cap: 4, pool_single: false },
      margin: 0.03,
      confidence: 0.9,
      budget: { gpu_s: 5400, runs: 12 },
    });
    expect(planToForm(plan).stopEarly).toEqual(f.stopEarly);
    const none = Plan.parse(formToPlan({ ...f, stopEarly: { ...f.stopEarly, budget_gpu_h: 0, budget_runs: 0 } }));
    expect(none.adaptive!.budget).toEqual({});
  });
});
