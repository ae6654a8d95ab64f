import { TuneReport } from '../components/TuneReport';
import { NoSweepsYet } from '../components/EmptyState';
import { useEffect, useMemo, useState } from 'react';
import type { SweepRecord } from '../../shared/records';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { SimBadge, StatusBadge } from '../components/Badges';
import { dateTime, formatDuration } from '../lib/format';
import { navigate } from '../lib/route';
import { askCompare, useHistory } from '../state/history';
import { MAX_COMPARED } from '../../shared/export';
import { toast, toastError } from '../state/toasts';
import { api } from '../api/client';
import type { DatasetRecord } from '../../shared/dataset';
import type { SweepBestCaps } from '../../shared/api/analysis';
import { DatasetTable } from './DatasetsPage';

type KindFilter = 'all' | 'real' | 'simulated';

export function HistoryPage() {
  const { sweeps, search, setSearch, load, remove, annotate, loading, error } = useHistory();
  const [victim, setVictim] = useState<SweepRecord | null>(null);
  const [datasets, setDatasets] = useState<DatasetRecord[]>([]);
  const [status, setStatus] = useState('all');
  const [kind, setKind] = useState<KindFilter>('all');
  const [picked, setPicked] = useState<number[]>([]);
  const [editing, setEditing] = useState<number | null>(null);
  useEffect(() => void load(), [load]);
  useEffect(() => void api.listDatasets({}).then(setDatasets, toastError), []);
  const best = useBestCaps(sweeps);

  const statuses = useMemo(() => [...new Set(sweeps.map((s) => s.status))].sort(), [sweeps]);
  const shown = sweeps.filter((s) => (status === 'all' || s.status === status) && (kind === 'all' || s.simulated === (kind === 'simulated')));
  const toggle = (id: number) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));

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

  function compare() {
    const [first, ...rest] = picked;
    askCompare(rest);
    navigate('results', first!);
  }

  return (
    <section className="page" aria-labelledby="history-title">
      <header className="page-head">
        <h2 id="history-title">History</h2>
        <div className="row">
          <input type="search" placeholder="Search sweeps (name, workload, host, tags, notes)…" value={search} onChange={(e) => setSearch(e.target.value)} data-testid="history-search" aria-label="Search sweeps" />
          <label>
            Status{' '}
            <select value={status} onChange={(e) => setStatus(e.target.value)} data-testid="history-status">
              <option value="all">all</option>
              {statuses.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            GPUs{' '}
            <select value={kind} onChange={(e) => setKind(e.target.value as KindFilter)} data-testid="history-kind">
              <option value="all">real and simulated</option>
              <option value="real">real only</option>
              <option value="simulated">simulated only</option>
            </select>
          </label>
          <button onClick={compare} disabled={picked.length < 2} data-testid="history-compare" title={`Tick two or more sweeps (at most ${MAX_COMPARED + 1}): the first ticked opens on Results, compared with the others`}>
            {picked.length >= 2 ? `Compare #${picked[0]} with ${picked.slice(1).map((p) => `#${p}`).join(', ')}` : 'Compare (tick two or more)'}
          </button>
        </div>
      </header>
      {error && <p className="error">{error}</p>}
      <table className="table" data-testid="history-table">
        <thead>
          <tr>
            <th aria-label="Pick to compare" />
            <th>#</th>
            <th>Name</th>
            <th>Status</th>
            <th>GPU</th>
            <th title="The best cap under the default selector (most work per joule), as on Results">Best cap</th>
            <th>Runs</th>
            <th>Duration</th>
            <th>Backend</th>
            <th>Tags</th>
            <th>Notes</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => (
            <tr key={s.id} data-testid="history-row" data-sweep-id={s.id}>
              <td>
                <input
                  type="checkbox"
                  checked={picked.includes(s.id)}
                  onChange={() => toggle(s.id)}
                  // Nothing finished: nothing to compare. The export compares at most MAX_COMPARED with the first.
                  disabled={!picked.includes(s.id) && (s.runs_done === 0 || picked.length > MAX_COMPARED)}
                  title={s.runs_done === 0 ? `no run of sweep #${s.id} finished: nothing to compare` : undefined}
                  aria-label={`Pick sweep #${s.id} to compare`}
                  data-testid={`pick-${s.id}`}
                />
              </td>
              <td>{s.id}</td>
              <td>
                <button className="link" onClick={() => navigate('results', s.id)}>
                  {s.name}
                </button>{' '}
                {s.simulated && <SimBadge />}
                <TuneReport text={s.tune_report} />
              </td>
              <td>
                <StatusBadge status={s.status} />
              </td>
              <td data-testid="history-gpus">{s.gpu_models.length ? s.gpu_models.join(', ') : <span className="muted">none recorded</span>}</td>
              <BestCapCell best={best.get(s.id)} />
              <td>
                {s.runs_done}/{s.run_count}
              </td>
              <td data-testid="history-duration">{s.finished_at === null ? <span className="muted">{s.status === 'running' ? 'running' : 'not recorded'}</span> : formatDuration(s.finished_at - s.created_at)}</td>
              <td>{s.backend}</td>
              {editing === s.id ? (
                <NotesEditor
                  s={s}
                  onCancel={() => setEditing(null)}
                  onSave={async (patch) => {
                    try {
                      await annotate(s.id, patch);
                      setEditing(null);
                    } catch (e) {
                      toastError(e);
                    }
                  }}
                />
              ) : (
                <>
                  <td data-testid="history-tags">
                    {s.tags.map((t) => (
                      <span key={t} className="badge tag">
                        {t}
                      </span>
                    ))}
                  </td>
                  <td data-testid="history-notes">
                    <span className="notes-text">{s.notes}</span>{' '}
                    <button className="link small" onClick={() => setEditing(s.id)} data-testid={`edit-notes-${s.id}`}>
                      Edit
                    </button>
                  </td>
                </>
              )}
              <td>{dateTime(s.created_at)}</td>
              <td>
                <button className="danger small" onClick={() => setVictim(s)} disabled={s.status === 'running'} data-testid={`delete-${s.id}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
          {!loading && shown.length === 0 && (
            <tr>
              <td colSpan={13} className="muted">
                {search || sweeps.length ? 'No sweep matches.' : <NoSweepsYet what="past sweeps" />}
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

/** Tags (comma-separated) and notes of one sweep, edited in its row. */
function NotesEditor({ s, onSave, onCancel }: { s: SweepRecord; onSave(p: { tags: string[]; notes: string }): Promise<void>; onCancel(): void }) {
  const [tags, setTags] = useState(s.tags.join(', '));
  const [notes, setNotes] = useState(s.notes);
  const save = () => void onSave({ tags: tags.split(',').map((t) => t.trim()).filter(Boolean), notes });
  return (
    <td colSpan={2} data-testid="notes-editor">
      <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="tags, comma-separated" aria-label="Tags" data-testid="tags-input" />
      <textarea value={notes} onChange={(e) => setNotes(e.target.value)} rows={2} placeholder="notes" aria-label="Notes" data-testid="notes-input" maxLength={4000} />
      <button onClick={save} data-testid="notes-save">
        Save
      </button>{' '}
      <button onClick={onCancel}>Cancel</button>
    </td>
  );
}

/** The best caps of the listed sweeps, asked for again whenever the list changes (the engine keeps finished ones). */
function useBestCaps(sweeps: SweepRecord[]): Map<number, SweepBestCaps> {
  const [best, setBest] = useState(new Map<number, SweepBestCaps>());
  useEffect(() => {
    if (sweeps.length === 0) return;
    let stale = false;
    api.bestCaps({ sweep_ids: sweeps.map((s) => s.id) }).then((r) => !stale && setBest(new Map(r.map((b) => [b.sweep_id, b]))), toastError);
    return () => {
      stale = true;
    };
  }, [sweeps]);
  return best;
}

function BestCapCell({ best }: { best: SweepBestCaps | undefined }) {
  if (!best) return <td className="muted" data-testid="history-best" />;
  if (best.error !== null || best.groups.length === 0)
    return (
      <td className="muted" data-testid="history-best" title={best.error ?? 'no run has finished'}>
        —
      </td>
    );
  const many = best.groups.length > 1;
  return (
    <td data-testid="history-best">
      {best.groups.map((g) => (
        <div key={`${g.workload}|${g.device_model}`} title={g.no_answer_reason ?? `${g.workload} on ${g.device_model}`} className="nowrap">
          {many && <span className="muted small">{g.workload} </span>}
          {g.cap_w !== null ? `${g.cap_w} W` : <span className="muted">no answer</span>}
        </div>
      ))}
    </td>
  );
}
