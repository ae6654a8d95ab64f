// The designer's words for a plan problem's field: a workload parameter is named, so "must be an integer between 1
// and 8192" says which parameter (issue #29, designer messages).
import { describe, expect, it } from 'vitest';
import { fieldLabel, issueText } from '../../src/shared/plan-labels';
import { issuesAt } from '../../src/renderer/lib/plan-issues';

describe('plan problem labels', () => {
  it('names the workload parameter, the workload field and a list entry', () => {
    expect(fieldLabel('workloads.0.params.batch_size')).toBe('Workloads[0] parameter batch_size');
    expect(fieldLabel('workloads.1.id')).toBe('Workloads[1] name');
    expect(fieldLabel('workloads.0.params')).toBe('Workloads[0] params');
    expect(fieldLabel('caps.2')).toBe('Caps[2]');
    expect(issueText({ path: 'workloads.0.params.batch_size', message: 'must be an integer between 1 and 8192, got -5' })).toBe(
      'Workloads[0] parameter batch_size: must be an integer between 1 and 8192, got -5',
    );
  });

  it("a workload row's message names each parameter; other fields keep their message as it is", () => {
    const issues = [
      { path: 'workloads.0.params.batch_size', message: 'must be an integer between 1 and 8192, got -5' },
      { path: 'workloads.0.params.precision', message: 'must be one of fp32, tf32, bf16, fp16, got "fp8"' },
      { path: 'caps.from', message: 'a number' },
    ];
    expect(issuesAt(issues, 'workloads.0.params', 'workloads.0.runtime')).toBe('batch_size: must be an integer between 1 and 8192, got -5; precision: must be one of fp32, tf32, bf16, fp16, got "fp8"');
    expect(issuesAt(issues, 'caps')).toBe('a number');
    expect(issuesAt(issues, 'workloads.1.params')).toBeUndefined();
  });
});
