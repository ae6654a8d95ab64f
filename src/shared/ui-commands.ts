/**
 * Commands the renderer acts on, sent by its keyboard shortcuts and, in Electron, by the native menu (as DOM
 * events): one list, so the menu and the shortcuts cannot drift apart.
 */
export const UI_COMMANDS = [
  'nav:devices',
  'nav:designer',
  'nav:console',
  'nav:results',
  'nav:history',
  'nav:datasets',
  'nav:facility',
  'nav:cluster',
  'sweep:start',
  'sweep:cancel',
  'plan:open',
  'plan:save',
  'theme:toggle',
  'help:shortcuts',
] as const;

export type UiCommand = (typeof UI_COMMANDS)[number];
