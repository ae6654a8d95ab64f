import { methodNames, type EventName, type EventPayload, type LabApi } from '../../shared/api';
import { httpTransport } from './http-transport';
import { ipcTransport } from './ipc-transport';
import type { ConnectionState, Transport, UploadedFile } from './transport';

export { ApiCallError, isNotFound } from './transport';

let transport: Transport | null = null;
const stateListeners = new Set<(s: ConnectionState) => void>();
let connection: ConnectionState = 'connecting';

function setState(s: ConnectionState): void {
  connection = s;
  for (const l of stateListeners) l(s);
}

function getTransport(): Transport {
  if (!transport) {
    if (window.caplab) {
      transport = ipcTransport(window.caplab);
      setState('open');
    } else {
      transport = httpTransport(setState);
    }
  }
  return transport;
}

export function transportKind(): 'ipc' | 'http' {
  return getTransport().kind;
}

export function onConnection(cb: (s: ConnectionState) => void): () => void {
  stateListeners.add(cb);
  cb(connection);
  return () => stateListeners.delete(cb);
}

/** The engine's API, one function per contract method, generated from the contract's method list. */
export const api: LabApi = Object.fromEntries(
  methodNames.map((m) => [m, (input: unknown) => getTransport().call(m, input ?? {})]),
) as unknown as LabApi;

/** Streams a file to the browser host's upload folder; null where the transport takes no uploads (desktop app). */
export function uploadFile(file: File, onProgress: (sent: number, total: number) => void): Promise<UploadedFile> | null {
  const t = getTransport();
  return t.upload ? t.upload(file, onProgress) : null;
}

/** Listens to one engine event; returns the unsubscribe function. */
export function onEvent<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): () => void {
  return getTransport().on(event, cb as (p: unknown) => void);
}
