import { useEffect } from 'react';
import { commandForKey, type Command } from './keys';

export { SHORTCUTS, commandForKey, type Command } from './keys';

const EVENT = 'caplab:command';

export function dispatchCommand(c: Command): void {
  window.dispatchEvent(new CustomEvent(EVENT, { detail: c }));
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
