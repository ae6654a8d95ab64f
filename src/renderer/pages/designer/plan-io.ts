import { api } from '../../api/client';
import { planToForm, type PlanForm } from '../../lib/plan-form';
import type { Plan } from '../../../shared/plan';
import type { PlanIssue } from '../../../shared/api/plans';

/** Saves a (validated) plan as YAML through a download; works in the browser and in Electron. */
export async function downloadPlanYaml(plan: Plan): Promise<string> {
  const { yaml } = await api.planToYaml({ plan });
  const blob = new Blob([yaml], { type: 'application/yaml' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${(plan.name || 'plan').replace(/[^\w.-]+/g, '_').slice(0, 60)}.yaml`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return yaml;
}

/** Parses YAML with the engine; returns the form or the engine's problems, each at its field. */
export async function formFromYaml(yaml: string): Promise<{ form: PlanForm | null; issues: PlanIssue[] }> {
  const r = await api.planFromYaml({ yaml });
  return r.ok && r.plan ? { form: planToForm(r.plan), issues: [] } : { form: null, issues: r.issues };
}
