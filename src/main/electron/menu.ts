import { Menu, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import type { UiCommand } from '../../shared/ui-commands';

/** Sends a command to the page as a DOM CustomEvent (no extra preload surface). */
function sendCommand(win: BrowserWindow | null, command: UiCommand): void {
  if (!win || win.isDestroyed()) return;
  const js = `window.dispatchEvent(new CustomEvent('caplab:command', { detail: ${JSON.stringify(command)} }))`;
  void win.webContents.executeJavaScript(js, true).catch(() => undefined);
}

export function buildMenu(getWindow: () => BrowserWindow | null): Menu {
  const cmd = (command: UiCommand) => () => sendCommand(getWindow(), command);
  const isMac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Plan…', accelerator: 'CmdOrCtrl+O', click: cmd('plan:open') },
        { label: 'Save Plan…', accelerator: 'CmdOrCtrl+S', click: cmd('plan:save') },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Devices', accelerator: 'CmdOrCtrl+1', click: cmd('nav:devices') },
        { label: 'Sweep Designer', accelerator: 'CmdOrCtrl+2', click: cmd('nav:designer') },
        { label: 'Run Console', accelerator: 'CmdOrCtrl+3', click: cmd('nav:console') },
        { label: 'Results', accelerator: 'CmdOrCtrl+4', click: cmd('nav:results') },
        { label: 'History', accelerator: 'CmdOrCtrl+5', click: cmd('nav:history') },
        { label: 'Datasets', accelerator: 'CmdOrCtrl+6', click: cmd('nav:datasets') },
        { label: 'Facility', accelerator: 'CmdOrCtrl+7', click: cmd('nav:facility') },
        { label: 'Cluster', accelerator: 'CmdOrCtrl+8', click: cmd('nav:cluster') },
        { type: 'separator' },
        { label: 'Toggle Dark/Light Theme', accelerator: 'CmdOrCtrl+Shift+L', click: cmd('theme:toggle') },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
        ...(process.env.CAPLAB_DEVTOOLS ? [{ role: 'toggleDevTools' as const }] : []),
      ],
    },
    {
      label: 'Sweep',
      submenu: [
        { label: 'Start Sweep', accelerator: 'CmdOrCtrl+Enter', click: cmd('sweep:start') },
        { label: 'Cancel Sweep', accelerator: 'CmdOrCtrl+.', click: cmd('sweep:cancel') },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [{ label: 'Keyboard Shortcuts', accelerator: 'F1', click: cmd('help:shortcuts') }],
    },
  ];
  return Menu.buildFromTemplate(template);
}
