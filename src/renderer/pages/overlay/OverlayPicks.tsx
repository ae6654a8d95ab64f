import { navigate } from '../../lib/route';
import { isPicked, useOverlayPicks } from '../../state/overlay';
import { MAX_OVERLAY_SOURCES, overlayParam, type OverlayRef } from '../../../shared/overlay';

/** A run's or segment's checkbox: picks it for the Overlay page. */
export function OverlayPick({ refTo, label }: { refTo: OverlayRef; label: string }) {
  const picked = useOverlayPicks((s) => s.picked);
  const toggle = useOverlayPicks((s) => s.toggle);
  const on = isPicked(picked, refTo);
  return (
    <input
      type="checkbox"
      className="overlay-pick"
      checked={on}
      disabled={!on && picked.length >= MAX_OVERLAY_SOURCES}
      onChange={() => toggle(refTo)}
      aria-label={`overlay ${label}`}
      title={`pick ${label} for the overlay`}
      data-testid={`overlay-pick-${refTo.kind === 'run' ? 'r' : 's'}${refTo.id}`}
    />
  );
}

/** What is picked for the overlay (from any sweep or dataset) and the way there. */
export function OverlayPicksBar() {
  const picked = useOverlayPicks((s) => s.picked);
  const clear = useOverlayPicks((s) => s.clear);
  if (picked.length === 0) return null;
  const runs = picked.filter((r) => r.kind === 'run').length;
  const segs = picked.length - runs;
  const what = [runs ? `${runs} run${runs > 1 ? 's' : ''}` : '', segs ? `${segs} segment${segs > 1 ? 's' : ''}` : ''].filter(Boolean).join(' and ');
  return (
    <div className="card overlay-bar row" data-testid="overlay-bar">
      <span>
        Picked for the overlay: <strong data-testid="overlay-count">{what}</strong>
      </span>
      <button className="primary" onClick={() => navigate('overlay', overlayParam(picked))} data-testid="overlay-open">
        Overlay traces
      </button>
      <button onClick={clear} data-testid="overlay-clear">
        Clear
      </button>
    </div>
  );
}
