// Keyboard shortcuts as pure data and one pure function (unit-tested without a DOM).
import type { UiCommand } from '../../shared/ui-commands';
import { pageList } from '../../shared/pages';

/** A command the renderer acts on (src/shared/ui-commands.ts). */
export type Command = UiCommand;

export const SHORTCUTS: { keys: string; command: Command; label: string }[] = [
  // The first nine pages are keys 1-9.
  ...pageList.slice(0, 9).map((p, i) => ({ keys: String(i + 1), command: `nav:${p.id}` as const, label: p.title })),
  { keys: 'Ctrl+Enter', command: 'sweep:start', label: 'Start the designed sweep' },
  { keys: 'Ctrl+.', command: 'sweep:cancel', label: 'Cancel the running sweep' },
  { keys: 'Ctrl+O', command: 'plan:open', label: 'Open a plan YAML' },
  { keys: 'Ctrl+S', command: 'plan:save', label: 'Save the plan as YAML' },
  { keys: 't', command: 'theme:toggle', label: 'Dark / light theme' },
  { keys: '?', command: 'help:shortcuts', label: 'This list' },
];

interface ElementLike {
  tagName?: string;
  isContentEditable?: boolean;
  closest?(selector: string): unknown;
}

function typingTarget(t: unknown): boolean {
  const el = t as ElementLike | null;
  if (!el || !el.tagName) return false;
  return !!el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || !!el.closest?.('.xterm');
}

/** The parts of a KeyboardEvent the shortcuts look at. */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  target: unknown;
}

/** Maps a key press to a command, or null. Plain keys only count outside text fields. */
export function commandForKey(e: KeyLike): Command | null {
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

