import { Menu, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import type { UiCommand } from '../../shared/ui-commands';
import { pageList } from '../../shared/pages';

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
        ...pageList.map((p, i): MenuItemConstructorOptions => ({ label: p.title, accelerator: i < 9 ? `CmdOrCtrl+${i + 1}` : undefined, click: cmd(`nav:${p.id}`) })),
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
