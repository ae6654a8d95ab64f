import { useContext, useEffect, useState } from 'react';
import { FieldMessage } from '../../components/Fields';
import { PlanIssuesContext } from './field-errors';
import { issuesAt, issuesExactly } from '../../lib/plan-issues';
import type { MethodOutput } from '../../../shared/api';
import { api } from '../../api/client';
import type { WorkloadRow } from '../../lib/plan-form';

type Workloads = MethodOutput<'listWorkloads'>;

export function WorkloadsEditor({ rows, onChange }: { rows: WorkloadRow[]; onChange(rows: WorkloadRow[]): void }) {
  const [known, setKnown] = useState<Workloads>([]);
  useEffect(() => {
    api.listWorkloads({}).then(setKnown, () => setKnown([]));
  }, []);
  const set = (i: number, patch: Partial<WorkloadRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const ids = new Set(known.map((k) => k.id));
  const issues = useContext(PlanIssuesContext);
  return (
    <fieldset className="group">
      <legend>Workloads</legend>
      {rows.map((w, i) => (
        <div className="workload-row" key={i} data-testid="workload-row">
          <label className="field">
            <span>Workload</span>
            <select value={w.id} data-testid={`workload-id-${i}`} onChange={(e) => set(i, { id: e.target.value })}>
              {!ids.has(w.id) && <option value={w.id}>{w.id || '(choose)'}</option>}
              {known.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.title} ({k.units})
                </option>
              ))}
            </select>
            <FieldMessage error={issuesAt(issues, `workloads.${i}.id`)} testId={`workload-id-${i}`} />
          </label>
          <label className="field">
            <span>Runtime</span>
            <select value={w.runtime} onChange={(e) => set(i, { runtime: e.target.value as WorkloadRow['runtime'] })}>
              {['native', 'docker', 'podman', 'apptainer'].map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <div className="params">
            <span className="label">Parameters</span>
            {w.params.map((p, k) => (
              <span className="param" key={k}>
                <input aria-label="parameter name" placeholder="name" value={p.key} onChange={(e) => set(i, { params: w.params.map((q, m) => (m === k ? { ...q, key: e.target.value } : q)) })} />
                <span>=</span>
                <input aria-label={`parameter ${p.key || k} value`} placeholder="value" value={p.value} onChange={(e) => set(i, { params: w.params.map((q, m) => (m === k ? { ...q, value: e.target.value } : q)) })} />
                <button className="icon" title="Remove parameter" onClick={() => set(i, { params: w.params.filter((_, m) => m !== k) })}>
                  ×
                </button>
              </span>
            ))}
            <button className="link" onClick={() => set(i, { params: [...w.params, { key: '', value: '' }] })}>
              + parameter
            </button>
            <FieldMessage error={issuesAt(issues, `workloads.${i}.params`, `workloads.${i}.runtime`)} />
          </div>
          {rows.length > 1 && (
            <button className="icon" title="Remove workload" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              ×
            </button>
          )}
        </div>
      ))}
      <FieldMessage error={issuesExactly(issues, 'workloads')} testId="workloads" />
      <button className="link" onClick={() => onChange([...rows, { id: known[0]?.id ?? '', params: [], runtime: 'native' }])}>
        + workload
      </button>
    </fieldset>
  );
}
