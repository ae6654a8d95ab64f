import { useEffect } from 'react';

/** Commands shared by keyboard shortcuts and (in Electron) the native menu, which sends them as DOM events. */
export type Command =
  | 'nav:devices'
  | 'nav:designer'
  | 'nav:console'
  | 'nav:results'
  | 'nav:history'
  | 'sweep:start'
  | 'sweep:cancel'
  | 'plan:open'
  | 'plan:save'
  | 'theme:toggle'
  | 'help:shortcuts';

export const SHORTCUTS: { keys: string; command: Command; label: string }[] = [
  { keys: '1', command: 'nav:devices', label: 'Devices' },
  { keys: '2', command: 'nav:designer', label: 'Sweep designer' },
  { keys: '3', command: 'nav:console', label: 'Run console' },
  { keys: '4', command: 'nav:results', label: 'Results' },
  { keys: '5', command: 'nav:history', label: 'History' },
  { keys: 'Ctrl+Enter', command: 'sweep:start', label: 'Start the designed sweep' },
  { keys: 'Ctrl+.', command: 'sweep:cancel', label: 'Cancel the running sweep' },
  { keys: 'Ctrl+O', command: 'plan:open', label: 'Open a plan YAML' },
  { keys: 'Ctrl+S', command: 'plan:save', label: 'Save the plan as YAML' },
  { keys: 't', command: 'theme:toggle', label: 'Dark / light theme' },
  { keys: '?', command: 'help:shortcuts', label: 'This list' },
];

const EVENT = 'caplab:command';

export function dispatchCommand(c: Command): void {
  window.dispatchEvent(new CustomEvent(EVENT, { detail: c }));
}

function typingTarget(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || !!el.closest?.('.xterm');
}

/** Maps a key press to a command, or null. Plain keys only count outside text fields. */
export function commandForKey(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey' | 'target'>): Command | null {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey) {
    if (e.key === 'Enter') return 'sweep:start';
    if (e.key === '.') return 'sweep:cancel';
    if (e.key.toLowerCase() === 'o') return 'plan:open';
    if (e.key.toLowerCase() === 's') return 'plan:save';
    return null;
  }
  if (e.altKey || typingTarget(e.target)) return null;
  const hit = SHORTCUTS.find((s) => s.keys === e.key && s.keys.length === 1);
  return hit ? hit.command : null;
}

/** Installs the keyboard shortcuts once (App). */
export function useKeyboardShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const c = commandForKey(e);
      if (!c) return;
      e.preventDefault();
      dispatchCommand(c);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** Runs `handler` for the given commands while the component is mounted. */
export function useCommand(commands: Command[], handler: (c: Command) => void): void {
  useEffect(() => {
    const on = (e: Event) => {
      const c = (e as CustomEvent<string>).detail as Command;
      if (commands.includes(c)) handler(c);
    };
    window.addEventListener(EVENT, on);
    return () => window.removeEventListener(EVENT, on);
  });
}
