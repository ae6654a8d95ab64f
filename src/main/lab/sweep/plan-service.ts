// The plans slice (src/shared/api/plans.ts): a plan checked against this host's devices and this database's
// earlier runs (plan-verdict.ts), as YAML and back, and the workloads a plan may name.
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import { adaptiveEstimate } from '../../../core/sweep/adaptive-summary';
import { scheduleRuns } from '../../../core/schedule';
import type { EngineContext } from '../engine-context';
import { PlanError } from '../input/errors';
import { issueLines, marked } from '../input/issues';
import { parsePlan, planFromYaml, planToYaml } from './plan-file';
import { checkPlan, readPlan, type CheckedPlan, type PlanVerdict } from './plan-verdict';
import { listWorkloadSummaries } from './workload-command';

export class PlansService implements SliceApi<'plans'> {
  constructor(private readonly ctx: EngineContext) {}

  async validatePlan(input: MethodInput<'validatePlan'>): Promise<MethodOutput<'validatePlan'>> {
    const checked = await readPlan(input.plan, { backend: this.ctx.backend, env: this.ctx.env });
    try {
      return this.validateChecked(checked);
    } finally {
      await checked.close();
    }
  }

  /** validatePlan's answer for a plan already read (`caplab sweep --check` reads it before it opens the database). */
  validateChecked(checked: CheckedPlan): MethodOutput<'validatePlan'> {
    const r = checked.verdict(this.ctx);
    if (!r.plan || r.issues.length) return { ok: false, errors: issueLines(r.issues), issues: marked(r.issues, 'error'), plan: null, run_count: 0, estimate_s: null, estimate_basis: null, warnings: [] };
    return { ok: true, errors: [], issues: [], plan: r.plan, run_count: scheduleRuns(r.plan).length, estimate_s: r.estimate?.seconds ?? null, estimate_basis: r.estimate?.basis ?? null, warnings: marked(r.warnings, 'warning'), adaptive_estimate: adaptiveEstimate(r.plan, r.timeScale) };
  }

  /** Every problem of a plan at once, each at its field, and its warnings (plan-verdict.ts, with this database's earlier runs); this engine's --backend applies. */
  checkPlan(value: unknown): Promise<PlanVerdict> {
    return checkPlan(value, { backend: this.ctx.backend, env: this.ctx.env, history: this.ctx });
  }

  async planToYaml(input: MethodInput<'planToYaml'>): Promise<MethodOutput<'planToYaml'>> {
    return { yaml: planToYaml(parsePlan(input.plan)) };
  }

  async planFromYaml(input: MethodInput<'planFromYaml'>): Promise<MethodOutput<'planFromYaml'>> {
    try {
      return { ok: true, errors: [], issues: [], plan: planFromYaml(input.yaml) };
    } catch (e) {
      if (e instanceof PlanError) return { ok: false, errors: e.errors, issues: marked(e.issues, 'error'), plan: null };
      throw e;
    }
  }

  async listWorkloads(_input: MethodInput<'listWorkloads'>): Promise<MethodOutput<'listWorkloads'>> {
    return listWorkloadSummaries(this.ctx.env);
  }
}
