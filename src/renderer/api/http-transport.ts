import { ApiError, type EventName } from '../../shared/api';
import { ApiCallError, type ConnectionState, type Transport, type UploadedFile } from './transport';
import { TOKEN_STORAGE_KEY, WS_BEARER, WS_PROTOCOL } from '../../shared/host-auth';

/** The token from the URL fragment (then dropped from the address bar) or, after a reload, from session storage. */
function pageToken(): string {
  const m = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (m) {
    const token = decodeURIComponent(m[1]!);
    sessionStorage.setItem(TOKEN_STORAGE_KEY, token);
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return token;
  }
  return sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
}

/**
 * Browser-host transport: POST /api/<method> with JSON and `Authorization: Bearer`, events over one WebSocket at
 * /api/ws with the token as a subprotocol (src/shared/host-auth.ts says why not a cookie). Reconnects with backoff.
 */
// Read once, when the page loads: before any navigation replaces the fragment.
const loadedToken = typeof window === 'undefined' ? '' : pageToken();

export function httpTransport(onState: (s: ConnectionState) => void, base = ''): Transport {
  const token = loadedToken;
  const auth = { Authorization: `Bearer ${token}` };
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  let ws: WebSocket | null = null;
  let delay = 500;

  const wsUrl = () => {
    const loc = window.location;
    return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}${base}/api/ws`;
  };

  function connect(): void {
    onState('connecting');
    const sock = new WebSocket(wsUrl(), [WS_PROTOCOL, `${WS_BEARER}${token}`]);
    ws = sock;
    sock.onopen = () => {
      delay = 500;
      onState('open');
    };
    sock.onmessage = (m) => {
      let msg: { event?: string; payload?: unknown };
      try {
        msg = JSON.parse(String(m.data));
      } catch {
        return;
      }
      const set = msg.event ? listeners.get(msg.event) : undefined;
      if (!set) return;
      for (const cb of set) {
        try {
          cb(msg.payload);
        } catch (e) {
          console.error(e);
        }
      }
    };
    sock.onclose = () => {
      if (ws !== sock) return;
      ws = null;
      onState('closed');
      // A refused upgrade looks like a close; ask health whether we are simply unauthorised.
      void fetch(`${base}/api/health`, { headers: auth })
        .then((r) => {
          if (r.status === 401) onState('unauthorized');
        })
        .catch(() => undefined)
        .finally(() => {
          setTimeout(connect, delay);
          delay = Math.min(delay * 2, 5000);
        });
    };
  }
  connect();

  return {
    kind: 'http',
    async call(method, input) {
      let res: Response;
      try {
        res = await fetch(`${base}/api/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...auth },
          body: JSON.stringify(input ?? {}),
        });
      } catch (e) {
        throw new ApiCallError(`cannot reach the CapLab host: ${(e as Error).message}`, 'unavailable');
      }
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = { error: text };
      }
      if (!res.ok) {
        if (res.status === 401) onState('unauthorized');
        // Checked with the contract: a body that is not an ApiError (a proxy's page) keeps the old best-effort reading.
        const err = ApiError.safeParse(body);
        if (err.success) throw new ApiCallError(err.data.error, err.data.code, res.status, err.data.issues);
        const b = body as { error?: string; code?: string } | null;
        throw new ApiCallError(b?.error ?? `HTTP ${res.status}`, b?.code ?? 'failed', res.status);
      }
      return body;
    },
    // XMLHttpRequest, not fetch: it reports upload progress and sends a File straight from disk.
    upload(file, onProgress) {
      return new Promise<UploadedFile>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open('PUT', `${base}/api/upload?name=${encodeURIComponent(file.name)}`);
        xhr.setRequestHeader('Authorization', auth.Authorization);
        xhr.setRequestHeader('Content-Type', 'application/octet-stream');
        xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
        xhr.onerror = () => reject(new ApiCallError(`cannot upload ${file.name} to the CapLab host (connection lost)`, 'unavailable'));
        xhr.onload = () => {
          let body: { path?: string; bytes?: number; error?: string; code?: string } | null = null;
          try {
            body = JSON.parse(xhr.responseText) as typeof body;
          } catch {
            body = { error: xhr.responseText };
          }
          if (xhr.status === 200 && body?.path) resolve({ path: body.path, bytes: body.bytes ?? file.size });
          else {
            if (xhr.status === 401) onState('unauthorized');
            reject(new ApiCallError(`upload of ${file.name} refused: ${body?.error ?? `HTTP ${xhr.status}`}`, body?.code ?? 'failed', xhr.status));
          }
        };
        xhr.send(file);
      });
    },
    on(event: EventName, cb) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(cb);
      return () => {
        set!.delete(cb);
      };
    },
  };
}
