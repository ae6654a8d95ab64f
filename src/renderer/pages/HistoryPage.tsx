import { NoSweepsYet } from '../components/EmptyState';
import { useEffect, useState } from 'react';
import type { SweepRecord } from '../../shared/records';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { SimBadge, StatusBadge } from '../components/Badges';
import { dateTime } from '../lib/format';
import { navigate } from '../lib/route';
import { useHistory } from '../state/history';
import { toast, toastError } from '../state/toasts';
import { api } from '../api/client';
import type { DatasetRecord } from '../../shared/dataset';
import { DatasetTable } from './DatasetsPage';

export function HistoryPage() {
  const { sweeps, search, setSearch, load, remove, loading, error } = useHistory();
  const [victim, setVictim] = useState<SweepRecord | null>(null);
  const [datasets, setDatasets] = useState<DatasetRecord[]>([]);
  useEffect(() => void load(), [load]);
  useEffect(() => void api.listDatasets({}).then(setDatasets, toastError), []);

  async function confirmDelete() {
    const s = victim!;
    setVictim(null);
    try {
      if (await remove(s.id)) toast('ok', `Deleted sweep #${s.id} and its runs and samples.`);
      else toast('warn', `Sweep #${s.id} was already gone.`);
    } catch (e) {
      toastError(e);
    }
  }

  return (
    <section className="page" aria-labelledby="history-title">
      <header className="page-head">
        <h2 id="history-title">History</h2>
        <input type="search" placeholder="Search sweeps (name, workload, host)…" value={search} onChange={(e) => setSearch(e.target.value)} data-testid="history-search" aria-label="Search sweeps" />
      </header>
      {error && <p className="error">{error}</p>}
      <table className="table" data-testid="history-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Name</th>
            <th>Status</th>
            <th>Runs</th>
            <th>Backend</th>
            <th>Host</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {sweeps.map((s) => (
            <tr key={s.id} data-testid="history-row">
              <td>{s.id}</td>
              <td>
                <button className="link" onClick={() => navigate('results', s.id)}>
                  {s.name}
                </button>{' '}
                {s.simulated && <SimBadge />}
              </td>
              <td>
                <StatusBadge status={s.status} />
              </td>
              <td>
                {s.runs_done}/{s.run_count}
              </td>
              <td>{s.backend}</td>
              <td>{s.host}</td>
              <td>{dateTime(s.created_at)}</td>
              <td>
                <button className="danger small" onClick={() => setVictim(s)} disabled={s.status === 'running'} data-testid={`delete-${s.id}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
          {!loading && sweeps.length === 0 && (
            <tr>
              <td colSpan={8} className="muted">
                {search ? 'No sweep matches.' : <NoSweepsYet what="past sweeps" />}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <h3>Imported datasets</h3>
      <DatasetTable list={datasets} />
      {datasets.length === 0 && <p className="muted small">No imported datasets: drop logs on the Datasets page or run `caplab import PATH`.</p>}
      {victim && (
        <ConfirmDialog
          title={`Delete sweep #${victim.id}?`}
          body={
            <>
              “{victim.name}”: {victim.run_count} runs with their samples and metrics are removed from the lab database. This cannot be undone.
            </>
          }
          confirmLabel="Delete"
          danger
          onConfirm={() => void confirmDelete()}
          onCancel={() => setVictim(null)}
        />
      )}
    </section>
  );
}
