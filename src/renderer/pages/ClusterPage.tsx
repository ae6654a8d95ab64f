import { useCallback, useEffect, useState } from 'react';
import type { ClusterJob, ClusterStatus, NodeAnalysis } from '../../shared/cluster';
import { api } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ProgressBar, StatusBadge } from '../components/Badges';
import { Plot } from '../components/Plot';
import { bestCapText, dateTime, sig } from '../lib/format';
import { navigate } from '../lib/route';
import { toast, toastError } from '../state/toasts';
import { nodeEfficiencyTraces, spreadTraces } from './cluster/node-charts';

const POLL_MS = 2000;
/** Legend below the cap axis title, not on it. */
const LEGEND = { orientation: 'h' as const, y: -0.35 };
const MARGIN = { l: 56, r: 16, t: 36, b: 80 };
const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);

function NodeAnalysisView({ a }: { a: NodeAnalysis }) {
  return (
    <div data-testid="node-analysis">
      {a.groups.map((g) => (
        <section key={g.workload} className="card">
          <h3>
            {g.workload}: {g.nodes.length} node(s)
          </h3>
          <p>
            Fleet best cap <strong data-testid="fleet-best">{bestCapText(g.fleet_best_cap.cap_w)}</strong> ({sig(g.fleet_best_cap.efficiency, 4)} units/J averaged over the nodes).
            Outlier nodes: <strong data-testid="outlier-nodes">{g.outlier_nodes.join(', ') || 'none'}</strong>.
          </p>
          <div className="grid2">
            <Plot testId="node-efficiency-plot" data={nodeEfficiencyTraces(g)} layout={{ title: { text: 'Efficiency per node (outliers in red)' }, legend: LEGEND, margin: MARGIN, xaxis: { title: { text: 'power cap (W)' } }, yaxis: { title: { text: 'units per joule' } } }} height={280} />
            <Plot testId="node-spread-plot" data={spreadTraces(g)} layout={{ title: { text: 'Spread across nodes and GPUs, (max − min) / mean' }, legend: LEGEND, margin: MARGIN, barmode: 'group', xaxis: { title: { text: 'power cap (W)' } }, yaxis: { title: { text: '%' }, rangemode: 'tozero' } }} height={280} />
          </div>
          <table className="table" data-testid="node-best-table">
            <thead>
              <tr>
                <th>Node</th>
                <th>Best cap</th>
                <th>units/J there</th>
              </tr>
            </thead>
            <tbody>
              {g.best_cap_per_node.map((b) => (
                <tr key={b.node} className={g.outlier_nodes.includes(b.node) ? 'warn-row' : ''}>
                  <td>{b.node}</td>
                  <td>{bestCapText(b.cap_w)}</td>
                  <td>{sig(b.efficiency, 4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table className="table" data-testid="node-spread-table">
            <thead>
              <tr>
                <th>Cap</th>
                <th>Nodes</th>
                <th>Throughput spread</th>
                <th>Power spread</th>
                <th>Efficiency spread (CV)</th>
                <th>GPU-to-GPU power</th>
                <th>Outliers</th>
              </tr>
            </thead>
            <tbody>
              {g.caps.map((c) => (
                <tr key={c.cap_w}>
                  <td>{c.cap_w} W</td>
                  <td>{c.per_node.length}</td>
                  <td>{pct(c.throughput.range_rel)}</td>
                  <td>{pct(c.power_w.range_rel)}</td>
                  <td>
                    {pct(c.efficiency.range_rel)} ({pct(c.efficiency.cv)})
                  </td>
                  <td>{pct(c.gpu_power_w.range_rel)}</td>
                  <td>{c.outliers.map((o) => `${o.node} ${o.metric}`).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
      {a.notes.map((n) => (
        <p key={n} className="muted">
          {n}
        </p>
      ))}
    </div>
  );
}

export function ClusterPage({ param }: { param: string | null }) {
  const [jobs, setJobs] = useState<ClusterJob[]>([]);
  const [status, setStatus] = useState<ClusterStatus | null>(null);
  const [analysis, setAnalysis] = useState<NodeAnalysis | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const selected = param ?? jobs[0]?.job_id ?? null;

  const loadJobs = useCallback(() => api.listClusterJobs({}).then(setJobs, toastError), []);
  useEffect(() => void loadJobs(), [loadJobs]);

  const refresh = useCallback(async () => {
    if (!selected) return;
    try {
      const s = await api.clusterStatus({ job: selected });
      setStatus(s);
      if (s.sweep_id !== null) setAnalysis(await api.analyzeNodes({ sweep_id: s.sweep_id }));
    } catch (e) {
      toastError(e);
    }
  }, [selected]);

  useEffect(() => {
    setStatus(null);
    setAnalysis(null);
    void refresh();
  }, [refresh]);
  const active = status?.state === 'running' || status?.state === 'pending';
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(t);
  }, [active, refresh]);

  async function collect() {
    if (!selected) return;
    setBusy(true);
    try {
      const c = await api.collectCluster({ job: selected });
      toast('ok', `Job ${c.job_id} → sweep #${c.sweep_id}: ${c.runs_done}/${c.runs} runs from ${c.tasks_found}/${c.tasks} tasks (${c.changed} new or updated).`);
      for (const w of c.warnings) toast('warn', w);
      await loadJobs();
      await refresh();
    } catch (e) {
      toastError(e);
    } finally {
      setBusy(false);
    }
  }

  async function cancel() {
    setConfirm(false);
    if (!selected) return;
    try {
      await api.cancelCluster({ job: selected });
      toast('ok', `Cancelled job ${selected}; each node restores its own limits.`);
      await refresh();
    } catch (e) {
      toastError(e);
    }
  }

  return (
    <section className="page" aria-labelledby="cluster-title">
      <header className="page-head">
        <h2 id="cluster-title">Cluster</h2>
        <span className="muted">
          Submit with <code>caplab cluster submit PLAN.yaml --nodes N</code> on the Slurm login node (see docs/cluster.md).
        </span>
      </header>
      <table className="table" data-testid="cluster-jobs">
        <thead>
          <tr>
            <th>Job</th>
            <th>Name</th>
            <th>Shards</th>
            <th>Tasks</th>
            <th>Nodes at once</th>
            <th>Submitted</th>
            <th>Sweep</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.job_id} className={j.job_id === selected ? 'selected' : ''} data-testid="cluster-job-row">
              <td>
                <button className="link" onClick={() => navigate('cluster', j.job_id)}>
                  {j.job_id}
                </button>
              </td>
              <td>{j.name}</td>
              <td>{j.shard_by}</td>
              <td>{j.tasks}</td>
              <td>{j.nodes}</td>
              <td>{dateTime(j.submitted_at)}</td>
              <td>
                {j.sweep_id !== null ? (
                  <button className="link" onClick={() => navigate('results', j.sweep_id)}>
                    #{j.sweep_id}
                  </button>
                ) : (
                  <span className="muted">not collected</span>
                )}
              </td>
            </tr>
          ))}
          {jobs.length === 0 && (
            <tr>
              <td colSpan={7} className="muted">
                No cluster jobs in this database yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>

      {status && (
        <section className="card" data-testid="cluster-status">
          <h3>
            Job {status.job_id} “{status.name}” <StatusBadge status={status.state} />
          </h3>
          <ProgressBar fraction={status.run_count ? status.runs_done / status.run_count : 0} label="runs done" />
          <p className="muted">
            {status.runs_done}/{status.run_count} runs · from {status.source} · folder <code>{status.dir}</code>
          </p>
          <div className="row">
            <button onClick={() => void collect()} disabled={busy} data-testid="cluster-collect">
              {busy ? 'Collecting…' : status.sweep_id === null ? 'Collect results' : 'Collect again'}
            </button>
            <button className="danger" onClick={() => setConfirm(true)} disabled={!active} data-testid="cluster-cancel">
              Cancel job
            </button>
          </div>
          <table className="table" data-testid="cluster-tasks">
            <thead>
              <tr>
                <th>Task</th>
                <th>Slurm state</th>
                <th>Node</th>
                <th>Host</th>
                <th>GPUs</th>
                <th>Driver</th>
                <th>Runs</th>
                <th>Result file</th>
              </tr>
            </thead>
            <tbody>
              {status.tasks.map((t) => (
                <tr key={t.task}>
                  <td>{t.task}</td>
                  <td>
                    <StatusBadge status={t.state.toLowerCase()} />
                  </td>
                  <td>{t.node ?? '–'}</td>
                  <td>{t.hostname ?? '–'}</td>
                  <td className="small">{t.gpus.join('; ') || '–'}</td>
                  <td>{t.drivers.join(', ') || '–'}</td>
                  <td>
                    {t.runs_done}/{t.run_count}
                  </td>
                  <td>{t.result_status ?? <span className="muted">none yet</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {analysis && <NodeAnalysisView a={analysis} />}
      {confirm && (
        <ConfirmDialog
          title="Cancel the cluster job?"
          body={<p>Slurm sends every running task SIGTERM; each task stops its sweep and restores its node's power limits. Results written so far stay collectable.</p>}
          confirmLabel="Cancel job"
          danger
          onConfirm={() => void cancel()}
          onCancel={() => setConfirm(false)}
        />
      )}
    </section>
  );
}
