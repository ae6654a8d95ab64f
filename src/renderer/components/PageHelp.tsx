import { PAGE_HELP, type Page } from '../lib/routes';
import { usePrefs } from '../state/prefs';
import { setNotifyOnEnd } from '../state/notify';

/**
 * Above every page: a link to the user guide's section for it, and, until dismissed, what the page is for and the
 * next step (the first-run guidance).
 */
export function PageHelp({ page, onGuide }: { page: Page; onGuide(section: string): void }) {
  const help = PAGE_HELP[page];
  const dismissed = usePrefs((p) => p.dismissedHints.includes(page));
  const dismiss = usePrefs((p) => p.dismissHint);
  return (
    <div className="page-help" data-testid="page-help">
      {!dismissed && help.hint && (
        <p className="hint" data-testid="page-hint">
          <strong>New here?</strong> {help.hint}{' '}
          <button className="link" onClick={() => dismiss(page)} data-testid="dismiss-hint">
            Got it
          </button>
        </p>
      )}
      <button className="link guide-link" onClick={() => onGuide(help.section)} data-testid="guide-link" title="Open the user guide at this page's section">
        Guide: {help.title}
      </button>
    </div>
  );
}

/** The opt-in end-of-sweep notification, where a sweep is watched. */
export function NotifyToggle() {
  const on = usePrefs((p) => p.notifyOnEnd);
  return (
    <label className="check small" title="A desktop notification when a sweep ends or fails, also when this window is in the background">
      <input type="checkbox" checked={on} data-testid="notify-toggle" onChange={(e) => void setNotifyOnEnd(e.target.checked)} />
      <span>notify me when it ends</span>
    </label>
  );
}
