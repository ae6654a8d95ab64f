import { pageList, type PageId } from './pages';

/** Commands besides going to a page. */
const ACTIONS = ['sweep:start', 'sweep:cancel', 'plan:open', 'plan:save', 'theme:toggle', 'help:shortcuts'] as const;

export type UiCommand = `nav:${PageId}` | (typeof ACTIONS)[number];

/**
 * Commands the renderer acts on, sent by its keyboard shortcuts and, in Electron, by the native menu (as DOM
 * events): one list, so the menu and the shortcuts cannot drift apart. `nav:PAGE` for each page of pages.ts.
 */
export const UI_COMMANDS: readonly UiCommand[] = [...pageList.map((p) => `nav:${p.id}` as const), ...ACTIONS];
