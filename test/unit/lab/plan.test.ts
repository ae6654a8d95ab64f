import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPlanFile, planFromYaml, planToYaml } from '../../../src/main/lab/sweep/plan-file';
import { PlanError } from '../../../src/main/lab/input/errors';
import { deviceIssues, partsOf } from '../../../src/main/lab/sweep/plan-check';
import { issueLines } from '../../../src/main/lab/input/issues';
import { planCaps, Plan } from '../../../src/shared/plan';
import { scheduleRuns, estimatePlanSeconds } from '../../../src/core/schedule';
import type { DeviceInfo } from '../../../src/shared/device';
import { tempDir } from '../../helpers/tmp';

const h100: DeviceInfo = {
  id: 'sim:0', index: 0, backend: 'sim', kind: 'gpu', name: 'H100 SXM (simulated)', vendor: 'sim', simulated: true,
  uuid: null, pci_bus_id: null, driver: null, vbios: null, limit_w: 700, enforced_limit_w: 700, min_limit_w: 200, max_limit_w: 700,
  default_limit_w: 700, sensors: { power_kinds: ['instant'], energy_counter: true, energy_counter_check: 'ok', update_period_ms: 100 },
};
const known = new Set(['vit_l_16', 'resnet50']);

describe('plan files', () => {
  it('reads the shipped demo plan: 6 caps x 2 repetitions, randomized per repetition', () => {
    const plan = readPlanFile('resources/plans/demo-sim.yaml');
    expect(planCaps(plan.caps)).toEqual([200, 300, 400, 500, 600, 700]);
    const runs = scheduleRuns(plan);
    expect(runs).toHaveLength(12);
    for (const rep of [1, 2]) expect(runs.filter((r) => r.repetition === rep).map((r) => r.cap_w).sort()).toEqual([200, 300, 400, 500, 600, 700]);
    expect(runs.map((r) => r.order)).toEqual([...Array(12).keys()]);
    expect(runs.slice(0, 6).map((r) => r.cap_w)).not.toEqual([200, 300, 400, 500, 600, 700]);
    expect(scheduleRuns(plan)).toEqual(runs);
    expect(estimatePlanSeconds(plan) / plan.sim.speedup).toBeLessThan(60);
  });

  it('round-trips through YAML', () => {
    const plan = readPlanFile('resources/plans/demo-sim.yaml');
    expect(planFromYaml(planToYaml(plan))).toEqual(plan);
  });

  it('names the field of a malformed plan and the file it came from', () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, 'workloads: []\ncaps: {from: 700, to: 200, step: 100}\nrepetitions: 0\n');
      const err = (() => {
        try {
          readPlanFile(file);
        } catch (e) {
          return e as PlanError;
        }
        throw new Error('no error');
      })();
      expect(err).toBeInstanceOf(PlanError);
      expect(err.message).toContain(file);
      expect(err.errors.join('\n')).toMatch(/workloads/);
      expect(err.errors.join('\n')).toMatch(/repetitions/);
      writeFileSync(file, 'caps: [200\n');
      expect(() => readPlanFile(file)).toThrow(/not valid YAML/);
      expect(() => readPlanFile(join(dir, 'missing.yaml'))).toThrow(/^no such file: .*missing\.yaml$/);
      writeFileSync(file, 'workloads: [{id: vit_l_16}]\ncaps: [300]\nbogus_field: 1\n');
      expect(() => readPlanFile(file)).toThrow(/bogus_field/);
    } finally {
      cleanup();
    }
  });

  it('rejects caps outside the device range with the allowed range, and unknown workloads and devices', () => {
    const plan = Plan.parse({ workloads: [{ id: 'vit_l_16' }, { id: 'nope' }], caps: [150, 300, 800], devices: [0, 3] });
    const { issues, chosen } = deviceIssues(partsOf(plan), [h100], known);
    const errors = issueLines(issues);
    expect(errors).toContain('caps: 150 W is outside the allowed range of H100 SXM (simulated) (#0): 200-700 W');
    expect(errors).toContain('caps: 800 W is outside the allowed range of H100 SXM (simulated) (#0): 200-700 W');
    expect(errors).toContain('workloads.1.id: unknown workload "nope" (known: resnet50, vit_l_16)');
    expect(errors).toContain('devices.1: no GPU with index 3 (available: 0)');
    expect(chosen).toEqual([h100]);
    expect(deviceIssues(partsOf(Plan.parse({ workloads: [{ id: 'vit_l_16' }], caps: [200, 700] })), [h100], known)).toEqual({ issues: [], chosen: [h100] });
  });

  it('lets observe-only plans name any cap, since no limit is touched', () => {
    const plan = Plan.parse({ workloads: [{ id: 'vit_l_16' }], caps: [900], observe_only: true });
    expect(deviceIssues(partsOf(plan), [h100], known)).toEqual({ issues: [], chosen: [h100] });
  });
});

describe('plan bounds, checked before anything is expanded', () => {
  const base = { workloads: [{ id: 'vit_l_16' }] };
  const problems = (v: unknown) => {
    const r = Plan.safeParse(v);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('refuses plans over 10,000 runs, tiny steps, huge caps and windows of years, naming the field', () => {
    expect(problems({ ...base, caps: { from: 200, to: 700, step: 0.01 }, repetitions: 100 })).toEqual(['caps: the plan would make 5,000,100 runs (workloads x caps x repetitions); a plan may have at most 10,000']);
    expect(problems({ ...base, caps: { from: 200, to: 700, step: 1e-300 } })).toContain('caps.step: a step of at least 0.01 W');
    expect(problems({ ...base, caps: { from: 1, to: 1e15, step: 1 } })).toContain('caps.to: at most 100000 W');
    expect(problems({ ...base, caps: [300], window: { seconds: 3 * 365 * 86400 } })).toEqual(['window.seconds: at most 86400 s']);
    expect(problems({ ...base, caps: [300], warmup: { seconds: 86400 } })).toEqual(['warmup.seconds: at most 21600 s']);
    expect(problems({ ...base, caps: { adaptive: { from: 200, to: 700, step: 50, max_runs: 20_000 } } })[0]).toMatch(/^caps(\.adaptive\.max_runs)?: .*10000/);
    expect(problems({ ...base, caps: [300], devices: [0, 0] })).toEqual(['devices: a device is listed twice']);
    expect(problems({ ...base, caps: { from: 200, to: 700, step: 50 }, repetitions: 100 })).toEqual([]);
  });
  it('caps given as strings say what is wrong and which forms caps take', () => {
    const [msg] = problems({ ...base, caps: ['300', '400'] });
    expect(msg).toMatch(/^caps: at 0: Invalid input: expected number, received string \(caps are a list of watts/);
    expect(problems({ ...base, caps: 'lots' })[0]).toMatch(/^caps: must be a list of watts .*; got "lots"/);
  });
});
