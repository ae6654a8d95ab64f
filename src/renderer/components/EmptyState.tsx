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
