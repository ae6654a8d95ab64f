import { useContext } from 'react';
import { FieldMessage, NumberField } from '../../components/Fields';
import { PlanIssuesContext } from './field-errors';
import { issuesAt, issuesExactly } from '../../lib/plan-issues';
import type { CapsMode, PlanForm } from '../../lib/plan-form';

export function CapsEditor({ form, update }: { form: PlanForm; update(p: Partial<PlanForm>): void }) {
  const issues = useContext(PlanIssuesContext);
  const err = (path: string) => issuesAt(issues, path);
  // Problems of the caps as a whole (out of a device's range, not a valid list) and of single list entries.
  const capsError = issuesExactly(issues, 'caps');
  const modes: { id: CapsMode; label: string }[] = [
    { id: 'grid', label: 'Grid' },
    { id: 'list', label: 'List' },
    { id: 'adaptive', label: 'Adaptive' },
  ];
  return (
    <fieldset className="group">
      <legend>Power caps</legend>
      <div className="segmented" role="radiogroup" aria-label="Caps mode">
        {modes.map((m) => (
          <button key={m.id} role="radio" aria-checked={form.capsMode === m.id} className={form.capsMode === m.id ? 'on' : ''} data-testid={`caps-mode-${m.id}`} onClick={() => update({ capsMode: m.id })}>
            {m.label}
          </button>
        ))}
      </div>
      {form.capsMode === 'grid' && (
        <div className="row">
          <NumberField label="From" unit="W" value={form.grid.from} onChange={(v) => update({ grid: { ...form.grid, from: v } })} testId="caps-from" error={err('caps.from')} />
          <NumberField label="To" unit="W" value={form.grid.to} onChange={(v) => update({ grid: { ...form.grid, to: v } })} testId="caps-to" error={err('caps.to')} />
          <NumberField label="Step" unit="W" value={form.grid.step} onChange={(v) => update({ grid: { ...form.grid, step: v } })} testId="caps-step" error={err('caps.step')} />
        </div>
      )}
      {form.capsMode === 'list' && (
        <label className="field wide">
          <span>Caps (W), comma-separated</span>
          <input value={form.list} data-testid="caps-list" aria-invalid={capsError ? true : undefined} onChange={(e) => update({ list: e.target.value })} />
        </label>
      )}
      {form.capsMode === 'adaptive' && (
        <div className="row wrap">
          <NumberField label="From" unit="W" value={form.adaptive.from} onChange={(v) => update({ adaptive: { ...form.adaptive, from: v } })} error={err('caps.adaptive.from')} />
          <NumberField label="To" unit="W" value={form.adaptive.to} onChange={(v) => update({ adaptive: { ...form.adaptive, to: v } })} error={err('caps.adaptive.to')} />
          <NumberField label="Coarse step" unit="W" value={form.adaptive.step} onChange={(v) => update({ adaptive: { ...form.adaptive, step: v } })} error={err('caps.adaptive.step')} />
          <NumberField label="Resolve to" unit="W" value={form.adaptive.width_w} onChange={(v) => update({ adaptive: { ...form.adaptive, width_w: v } })} title="Stop refining when the best cap is known to within this width" error={err('caps.adaptive.width_w')} />
          <NumberField label="Max extra runs" value={form.adaptive.max_runs} onChange={(v) => update({ adaptive: { ...form.adaptive, max_runs: v } })} error={err('caps.adaptive.max_runs')} />
        </div>
      )}
      <FieldMessage error={capsError} testId="caps" />
    </fieldset>
  );
}
