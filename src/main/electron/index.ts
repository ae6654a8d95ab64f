// Electron main process: the only place besides the preload that imports electron. It opens the engine, one
// hardened window, the native menu and the IPC transport; everything else lives in the engine.
import { app, BrowserWindow, Menu, Notification, ipcMain, session, shell, type WebContents } from 'electron';
import { join } from 'node:path';
import { eventNames, methodNames, type EventPayload } from '../../shared/api';
import { dbPath, Engine } from '../lab';
import type { EngineHandle } from '../host/engine-handle';
import { createIpcTransport, IPC_CALL, IPC_EVENT, isTrustedRendererUrl } from '../host/ipc';
import { buildMenu } from './menu';
import { electronPdfPrinter } from './print-pdf';
import { devRendererUrl, ELECTRON_CSP, isAllowedNavigation, windowOptions } from './window';

const devUrl = devRendererUrl(app.isPackaged, process.env);
const rendererFile = join(__dirname, '../renderer/index.html');
const preloadPath = join(__dirname, '../preload/index.cjs');

let win: BrowserWindow | null = null;
let engine: Engine | null = null;

function rendererUrl(): string {
  return devUrl ?? new URL(`file://${rendererFile.startsWith('/') ? '' : '/'}${rendererFile.replace(/\\/g, '/')}`).href;
}

function harden(contents: WebContents): void {
  contents.on('will-navigate', (e, url) => {
    if (!isAllowedNavigation(url, rendererUrl())) e.preventDefault();
  });
  contents.on('will-redirect', (e, url) => {
    if (!isAllowedNavigation(url, rendererUrl())) e.preventDefault();
  });
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    // External links open in the system browser, never inside the app.
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
}

function createWindow(): BrowserWindow {
  const w = new BrowserWindow(windowOptions({ preloadPath, methods: methodNames, events: eventNames, dark: true }));
  harden(w.webContents);
  w.once('ready-to-show', () => w.show());
  w.on('closed', () => {
    if (win === w) win = null;
  });
  if (devUrl) void w.loadURL(devUrl);
  else void w.loadFile(rendererFile);
  return w;
}

function wireIpc(eng: EngineHandle): () => void {
  const transport = createIpcTransport(eng, (url, isMainFrame) => isMainFrame && isTrustedRendererUrl(url, { file: rendererFile, devOrigin: devUrl }));
  ipcMain.handle(IPC_CALL, (e, method: unknown, input: unknown) => {
    const frame = e.senderFrame;
    const known = BrowserWindow.getAllWindows().some((b) => b.webContents.id === e.sender.id);
    if (!known || !frame) return { ok: false, status: 403, error: { error: 'IPC from an unknown window refused', code: 'forbidden' } };
    return transport.call(frame.url, frame === e.sender.mainFrame, method, input);
  });
  const unsubscribe = eng.subscribe((name, payload) => {
    for (const b of BrowserWindow.getAllWindows()) {
      if (!b.isDestroyed()) b.webContents.send(IPC_EVENT, name, payload);
    }
    if (name === 'sweep.finished') notifySweepEnd(payload);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(IPC_CALL);
  };
}

function notifySweepEnd(p: EventPayload<'sweep.finished'>): void {
  if (!Notification.isSupported()) return;
  const body =
    p.status === 'done'
      ? `Sweep #${p.sweep_id} finished. ${p.restored.length} power limit(s) restored.`
      : `Sweep #${p.sweep_id} ${p.status}${p.error ? `: ${p.error}` : ''}. ${p.restored.length} power limit(s) restored.`;
  const n = new Notification({ title: 'CapLab', body, silent: p.status === 'done' });
  n.on('click', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  n.show();
}

function secureSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...details.responseHeaders };
    // The dev server needs its inline HMR preamble; production gets the strict policy.
    if (!devUrl) headers['Content-Security-Policy'] = [ELECTRON_CSP];
    headers['X-Content-Type-Options'] = ['nosniff'];
    callback({ responseHeaders: headers });
  });
}

// Child processes that run CapLab's own CLI (the simulated workload) need Node, not the Electron binary:
// in a source checkout point them at node + bin/caplab.mjs unless the environment already says how.
if (!process.env.CAPLAB_SELF_ARGV && !app.isPackaged) {
  process.env.CAPLAB_SELF_ARGV = JSON.stringify(['node', join(__dirname, '../../bin/caplab.mjs')]);
}

app.enableSandbox();
app.on('web-contents-created', (_e, contents) => harden(contents));

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });

  app.whenReady().then(async () => {
    app.setAppUserModelId('org.caplab.app');
    secureSession();
    // CAPLAB_DB / CAPLAB_DATA_DIR as for the CLI, so the app and `caplab` share one lab database by default.
    engine = await Engine.open({ dbPath: dbPath(undefined, process.env), restoreOnOpen: true, printPdf: electronPdfPrinter });
    for (const r of engine.restoredAtOpen) console.warn(`caplab: restored ${r.device_name} (${r.device_id}) to ${r.before_w} W after an interrupted sweep`);
    const unwire = wireIpc(engine);
    Menu.setApplicationMenu(buildMenu(() => win));
    win = createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) win = createWindow();
    });
    let closing = false;
    app.on('before-quit', (e) => {
      if (closing || !engine) return;
      // Let the engine cancel a running sweep and restore the journalled limits before the process exits.
      e.preventDefault();
      closing = true;
      unwire();
      void engine.close().finally(() => app.quit());
    });
  }).catch((err) => {
    console.error('CapLab failed to start:', err);
    app.exit(1);
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
