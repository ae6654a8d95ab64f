// Sandboxed preload: exposes exactly two functions, `caplab.call` and `caplab.on`, with method and event names
// checked against the contract's lists (passed in by the main process as arguments; a sandboxed preload cannot
// load modules). The main process validates every payload again with the contract.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
// Bundled into the preload (no runtime imports of its own).
import { bridgeErrorText } from '../shared/bridge-error';
import type { ApiError } from '../shared/api';

const IPC_CALL = 'caplab:call';
const IPC_EVENT = 'caplab:event';

function listArg(name: string): ReadonlySet<string> {
  const prefix = `--${name}=`;
  const arg = process.argv.find((a) => a.startsWith(prefix));
  return new Set(arg ? arg.slice(prefix.length).split(',').filter(Boolean) : []);
}

const methodNames = listArg('caplab-methods');
const eventNames = listArg('caplab-events');

type Result = { ok: true; value: unknown } | { ok: false; status: number; error: ApiError };

const listeners = new Map<string, Set<(payload: unknown) => void>>();
ipcRenderer.on(IPC_EVENT, (_e: IpcRendererEvent, name: unknown, payload: unknown) => {
  if (typeof name !== 'string') return;
  const set = listeners.get(name);
  if (!set) return;
  for (const cb of set) {
    try {
      cb(payload);
    } catch (err) {
      console.error(err);
    }
  }
});

const api = {
  async call(method: string, input: unknown): Promise<unknown> {
    if (typeof method !== 'string' || !methodNames.has(method)) throw new Error(`unknown method "${String(method)}"`);
    const r = (await ipcRenderer.invoke(IPC_CALL, method, input ?? {})) as Result;
    if (r.ok) return r.value;
    // Only the message survives the context bridge, so the contract's error code (and a plan's issues) travel in it.
    throw new Error(bridgeErrorText(r.error));
  },
  pathForFile(file: File): string {
    return webUtils.getPathForFile(file);
  },
  on(event: string, cb: (payload: unknown) => void): () => void {
    if (typeof event !== 'string' || !eventNames.has(event)) throw new Error(`unknown event "${String(event)}"`);
    if (typeof cb !== 'function') throw new Error('callback must be a function');
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(cb);
    return () => {
      set!.delete(cb);
    };
  },
};

contextBridge.exposeInMainWorld('caplab', Object.freeze(api));
