import { dispatch, callError, type CallResult } from './dispatch';
import type { EngineHandle } from './engine-handle';

/** IPC channel names shared by the Electron main process and the preload. */
export const IPC_CALL = 'caplab:call';
export const IPC_EVENT = 'caplab:event';

/**
 * Is `frameUrl` our own renderer? In production the renderer is one file (file://…/out/renderer/index.html);
 * in development it is the electron-vite dev server's origin. Anything else (a navigated-away page, an iframe,
 * devtools extensions) is refused.
 */
export function isTrustedRendererUrl(frameUrl: string | undefined | null, renderer: { file?: string; devOrigin?: string }): boolean {
  if (!frameUrl) return false;
  let u: URL;
  try {
    u = new URL(frameUrl);
  } catch {
    return false;
  }
  if (renderer.devOrigin) {
    try {
      if (u.origin === new URL(renderer.devOrigin).origin) return true;
    } catch {
      /* fall through */
    }
  }
  if (renderer.file && u.protocol === 'file:') {
    const want = new URL(renderer.file.startsWith('file:') ? renderer.file : `file://${renderer.file.startsWith('/') ? '' : '/'}${renderer.file.replace(/\\/g, '/')}`);
    return decodeURIComponent(u.pathname) === decodeURIComponent(want.pathname);
  }
  return false;
}

/**
 * The Electron transport without Electron: validates the sender and the payload (with the contract, in dispatch),
 * then calls the engine. wireIpc in src/main/electron/index.ts binds it to ipcMain.
 */
export function createIpcTransport(engine: EngineHandle, trusted: (frameUrl: string | undefined, isMainFrame: boolean) => boolean) {
  return {
    async call(frameUrl: string | undefined, isMainFrame: boolean, method: unknown, input: unknown): Promise<CallResult> {
      if (!trusted(frameUrl, isMainFrame)) return callError('forbidden', 'IPC from an untrusted frame refused');
      if (typeof method !== 'string') return callError('invalid', 'method must be a string');
      return dispatch(engine, method, input);
    },
  };
}
