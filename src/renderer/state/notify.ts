import type { EventPayload } from '../../shared/api';
import { usePrefs } from './prefs';
import { toast } from './toasts';

/** Desktop/browser notifications exist here (Electron's renderer and secure-context browsers; 127.0.0.1 is one). */
function notificationsSupported(): boolean {
  return typeof Notification !== 'undefined';
}

/** Turns end-of-sweep notifications on (asking the permission) or off; says why when the browser refuses. */
export async function setNotifyOnEnd(on: boolean): Promise<void> {
  if (!on) return usePrefs.getState().set({ notifyOnEnd: false });
  if (!notificationsSupported()) return toast('warn', 'This browser cannot show notifications.');
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') {
    usePrefs.getState().set({ notifyOnEnd: false });
    return toast('warn', 'Notifications are blocked for this page: allow them in the browser\'s site settings to be told when a sweep ends.');
  }
  usePrefs.getState().set({ notifyOnEnd: true });
}

/** The notification for an ended sweep (opt-in), shown while the window may be elsewhere; null when off or refused. */
export function notifySweepEnded(p: EventPayload<'sweep.finished'>, name: string | null): Notification | null {
  if (!usePrefs.getState().notifyOnEnd || !notificationsSupported() || Notification.permission !== 'granted') return null;
  const failedRestores = p.restored.filter((r) => !r.ok).length;
  const title = `CapLab: sweep #${p.sweep_id} ${p.status}`;
  const body = [name, p.error, failedRestores ? `${failedRestores} power limit(s) could NOT be restored` : p.restored.length ? 'Power limits restored.' : null].filter(Boolean).join(' — ');
  const n = new Notification(title, { body, tag: `caplab-sweep-${p.sweep_id}` });
  n.onclick = () => {
    window.focus();
    window.location.hash = p.status === 'done' ? `#/results/${p.sweep_id}` : '#/console';
  };
  return n;
}
