import { useContext } from 'react';
import { CheckField, NumberField } from '../../components/Fields';
import { PlanIssuesContext } from './field-errors';
import { issuesAt } from '../../lib/plan-issues';
import type { PlanForm, StopEarlyForm } from '../../lib/plan-form';

/** Plan `adaptive`: stop windows, cool-downs and repetitions once the answer is settled, within a budget. */
export function AdaptiveEditor({ form, update }: { form: PlanForm; update(p: Partial<PlanForm>): void }) {
  const issues = useContext(PlanIssuesContext);
  const err = (path: string) => issuesAt(issues, `adaptive.${path}`);
  const a = form.stopEarly;
  const set = (p: Partial<StopEarlyForm>) => update({ stopEarly: { ...a, ...p } });
  const any = a.window || a.cooldown || a.repetitions;
  return (
    <fieldset className="group" data-testid="adaptive-options">
      <legend>Stop early (adaptive)</legend>
      <p className="muted small">The window, cool-down and repetitions above become upper bounds: each ends once the answer is settled.</p>
      <div className="row wrap">
        <CheckField label="Adaptive window" checked={a.window} onChange={(window) => set({ window })} testId="adaptive-window" title="End a run's window once throughput and power are steady and their CIs are within the target" />
        {a.window && <NumberField label="CI target" value={a.ci_target_pct} unit="%" onChange={(ci_target_pct) => set({ ci_target_pct })} testId="adaptive-ci" error={err('window.ci_target')} />}
        {a.window && <NumberField label="Shortest window" value={a.min_s} unit="s" onChange={(min_s) => set({ min_s })} testId="adaptive-min-window" error={err('window.min_s')} />}
      </div>
      <div className="row wrap">
        <CheckField label="Adaptive cool-down" checked={a.cooldown} onChange={(cooldown) => set({ cooldown })} testId="adaptive-cooldown" title="Start the next run once temperature and power are back near their pre-sweep baseline, or flat" />
        {a.cooldown && <NumberField label="Temperature band" value={a.cooldownRule.temp_band_c} unit="°C" onChange={(temp_band_c) => set({ cooldownRule: { ...a.cooldownRule, temp_band_c } })} testId="adaptive-temp-band" error={err('cooldown.temp_band_c')} />}
      </div>
      <div className="row wrap">
        <CheckField label="Sequential repetitions" checked={a.repetitions} onChange={(repetitions) => set({ repetitions })} testId="adaptive-repetitions" title="After the first pass, repeat only caps whose place in the equivalence set is undecided" />
        {a.repetitions && <NumberField label="Most per cap" value={a.max_per_cap} min={2} step={1} onChange={(max_per_cap) => set({ max_per_cap })} testId="adaptive-max-per-cap" error={err('repetitions.max_per_cap')} />}
        {a.repetitions && (
          <CheckField label="Judge caps run once on the pooled spread" checked={a.pool_single} onChange={(pool_single) => set({ pool_single })} testId="adaptive-pool-single" title="A cap measured once is judged on the run-to-run spread of the caps with repetitions, so a cap far from the best is not repeated only to show it worse" />
        )}
      </div>
      {any && (
        <div className="row wrap">
          <NumberField label="Margin" value={a.margin_pct} unit="%" onChange={(margin_pct) => set({ margin_pct })} title="As good as the best cap: within this much of it" testId="adaptive-margin" error={err('margin')} />
          <NumberField label="Confidence" value={a.confidence_pct} unit="%" onChange={(confidence_pct) => set({ confidence_pct })} testId="adaptive-confidence" error={err('confidence')} />
          <NumberField label="Budget: GPU time" value={a.budget_gpu_h} unit="h (0: none)" onChange={(budget_gpu_h) => set({ budget_gpu_h })} testId="adaptive-budget-gpu" error={err('budget.gpu_s')} />
          <NumberField label="Budget: added runs" value={a.budget_runs} step={1} unit="(0: none)" onChange={(budget_runs) => set({ budget_runs })} testId="adaptive-budget-runs" error={err('budget.runs')} />
        </div>
      )}
    </fieldset>
  );
}
