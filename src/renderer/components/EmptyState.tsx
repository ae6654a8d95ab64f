import { navigate } from '../lib/route';

/** What a page without any sweep says, with the next step (the first thing a newcomer sees on a fresh database). */
export function NoSweepsYet({ what }: { what: string }) {
  return (
    <div className="empty-state" data-testid="empty-state">
      <p>
        <strong>No sweeps yet</strong>, so there are no {what} to show.
      </p>
      <p className="muted">
        A sweep runs a workload at several power caps and measures work per joule at each. The quick-demo template runs in about a minute on a simulated GPU, no hardware needed.
      </p>
      <button className="primary" onClick={() => navigate('designer')} data-testid="empty-design">
        Design a sweep
      </button>
    </div>
  );
}

/** What a page says when its URL names a sweep or dataset that is not stored (a typed or stale link). */
export function NotStored({ what, id, list }: { what: 'sweep' | 'dataset'; id: string; list: 'history' | 'datasets' }) {
  return (
    <div className="empty-state" data-testid="not-stored">
      <p>
        <strong>
          No {what} {id}
        </strong>{' '}
        is stored in this database.
      </p>
      <button className="primary" onClick={() => navigate(list)} data-testid="not-stored-list">
        {list === 'history' ? 'Show all sweeps' : 'Show all datasets'}
      </button>
    </div>
  );
}
