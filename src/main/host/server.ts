import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventName } from '../../shared/api';
import { WS_BEARER, WS_PROTOCOL } from '../../shared/host-auth';
import type { EngineHandle } from './engine-handle';
import { callError, dispatch, type CallResult } from './dispatch';
import { watchBodyProgress } from './body-watchdog';
import { DEFAULT_MAX_UPLOAD_BYTES, receiveUpload, removeStaleUploads, removeUploads, uploadedAs, uploadsNamed, UploadTooLarge } from './upload';

/**
 * The page CSP: no inline or eval'd script, no plugins, no framing, no <base> rewriting every relative URL, no form
 * posting anywhere; sockets only back to loopback. src/renderer/index.html carries the same as a meta tag (less
 * frame-ancestors, which a meta tag cannot set).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export interface HostTimeouts {
  /** Longest wait for a request's headers, ms (a client sending them a byte at a time). */
  headersMs: number;
  /**
   * Longest a request body may go without a byte arriving, ms: a stalled client gets 408. There is no deadline on
   * the whole request, so an upload that keeps making progress takes as long as it needs.
   */
  idleMs: number;
}

export const DEFAULT_HOST_TIMEOUTS: HostTimeouts = { headersMs: 20_000, idleMs: 60_000 };

export interface ServerOptions {
  engine: EngineHandle;
  /** Interface to bind; loopback by default. Anything else needs allowNonLoopback (the CLI's explicit --host). */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Access token; a random 256-bit one when omitted. */
  token?: string;
  /** The built renderer (out/renderer); null serves the API only. */
  staticDir: string | null;
  allowNonLoopback?: boolean;
  /** Extra names accepted in the Host header (e.g. the machine's name when bound elsewhere). */
  allowedHosts?: string[];
  /** Largest accepted request body, bytes. */
  maxBodyBytes?: number;
  /** Serve Prometheus metrics at GET /metrics (token required, as a Bearer header): `caplab serve --metrics`. */
  metrics?: { contentType: string; text(): Promise<string> };
  /** Where PUT /api/upload streams files (imports of large logs); no uploads when absent. */
  uploadDir?: string;
  /** Largest accepted upload, bytes (default 16 GiB). */
  maxUploadBytes?: number;
  /** DEFAULT_HOST_TIMEOUTS unless given (tests shorten them). */
  timeouts?: Partial<HostTimeouts>;
}

export interface RunningServer {
  /** Page URL including the token, to print. */
  url: string;
  /** Base URL without the token. */
  origin: string;
  host: string;
  port: number;
  token: string;
  /** Events that were not sent to a slow client (live samples are dropped first, never control events). */
  stats(): { clients: number; dropped: number };
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Events a slow client may miss: high-rate live data. Control events (progress, finished) are always sent. */
const DROPPABLE: ReadonlySet<EventName> = new Set<EventName>(['samples', 'throughput']);
const SOFT_BUFFER = 4 * 1024 * 1024;
/** How much of a body refused with 413 is still read and dropped before the connection is closed. */
const DISCARD_BYTES = 64 * 1024 * 1024;
const HARD_BUFFER = 64 * 1024 * 1024;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Splits a Host header into name and port; IPv6 literals keep their brackets. */
function splitHost(value: string): { name: string; port: string } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(value.trim());
  if (!m) return null;
  return { name: m[1]!.toLowerCase(), port: m[2] ?? '80' };
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !opts.allowNonLoopback) {
    throw new Error(`refusing to bind to ${host}: the browser host listens on loopback unless --host is given explicitly`);
  }
  const token = opts.token ?? randomBytes(32).toString('base64url');
  if (token.length < 16) throw new Error('token must be at least 16 characters');
  const maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  const staticRoot = opts.staticDir ? resolve(opts.staticDir) : null;
  const engine = opts.engine;
  let port = 0;
  let dropped = 0;
  // Uploads that no import took (a page closed between upload and import, a host stopped): gone after a day.
  const uploadSweep = opts.uploadDir ? setInterval((dir: string) => removeStaleUploads(dir), 3600 * 1000, opts.uploadDir).unref() : undefined;
  if (opts.uploadDir) removeStaleUploads(opts.uploadDir);

  const allowedNames = new Set<string>(['127.0.0.1', 'localhost', '[::1]']);
  if (host !== '0.0.0.0' && host !== '::') allowedNames.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host.toLowerCase());
  for (const h of opts.allowedHosts ?? []) allowedNames.add(h.toLowerCase());

  function hostOk(req: IncomingMessage): boolean {
    const h = req.headers.host;
    if (!h) return false;
    const parts = splitHost(h);
    return !!parts && allowedNames.has(parts.name) && parts.port === String(port);
  }

  function originOk(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false;
    }
    if (u.protocol !== 'http:') return false;
    const name = u.hostname.toLowerCase();
    return allowedNames.has(name.includes(':') && !name.startsWith('[') ? `[${name}]` : name) && (u.port || '80') === String(port);
  }

  /**
   * The token as the page presents it: an Authorization header on API calls, a WebSocket subprotocol
   * (`caplab.bearer.<token>`, since browsers set no headers on sockets). Never a cookie: browsers send cookies of
   * 127.0.0.1 to every port of it, so any other local server would receive one.
   */
  function presentedToken(req: IncomingMessage): string | null {
    const auth = req.headers.authorization;
    if (auth && /^Bearer\s+/i.test(auth)) return auth.replace(/^Bearer\s+/i, '').trim();
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const bearer = protocols.find((p) => p.startsWith(WS_BEARER));
    return bearer ? bearer.slice(WS_BEARER.length) : null;
  }

  function authorized(req: IncomingMessage): boolean {
    const t = presentedToken(req);
    return t !== null && sameSecret(t, token);
  }

  function baseHeaders(res: ServerResponse): void {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  }

  function sendJson(res: ServerResponse, status: number, body: unknown): void {
    const data = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(data) });
    res.end(data);
  }

  function sendResult(res: ServerResponse, r: CallResult): void {
    if (r.ok) sendJson(res, 200, r.value);
    else sendJson(res, r.status, r.error);
  }

  /**
   * The request body, up to maxBody bytes. One declared larger by Content-Length is refused with 413 at once, before
   * any of it is read (then discardBody); one found larger while reading is read to its end and dropped, so the
   * client gets the answer instead of a reset connection.
   */
  function readBody(req: IncomingMessage): Promise<string> {
    return new Promise((resolveBody, reject) => {
      const tooLarge = () => Object.assign(new Error(`request body over ${maxBody} bytes`), { status: 413 });
      const declared = Number(req.headers['content-length'] ?? NaN);
      if (declared > maxBody) return reject(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      let ended = false;
      req.on('data', (c: Buffer) => {
        if (over) return;
        size += c.length;
        if (size > maxBody) {
          over = true;
          chunks.length = 0;
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        ended = true;
        if (over) reject(tooLarge());
        else resolveBody(Buffer.concat(chunks).toString('utf8'));
      });
      req.on('error', reject);
      req.on('close', () => {
        if (!ended) reject(new Error('the connection closed before the request body ended'));
      });
    });
  }

  /**
   * After an early 413: the rest of the body is read and dropped (so that a client still sending reads the answer
   * instead of a broken pipe), up to DISCARD_BYTES; a client that sends more loses its connection.
   */
  function discardBody(req: IncomingMessage): void {
    let seen = 0;
    req.on('data', (c: Buffer) => {
      seen += c.length;
      if (seen > DISCARD_BYTES) req.socket.destroy();
    });
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!authorized(req)) return sendResult(res, callError('unauthorized', 'missing or wrong token: open the URL that `caplab serve` printed'));
    const name = url.pathname.slice('/api/'.length);
    if (name === 'health' && req.method === 'GET') return sendResult(res, await dispatch(engine, 'health', {}));
    if (name === 'upload' && req.method === 'PUT') return handleUpload(req, res, url);
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return sendJson(res, 405, { error: `${req.method} not allowed on ${url.pathname}; use POST with a JSON body`, code: 'invalid' });
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return sendResult(res, callError('invalid', 'Content-Type must be application/json'));
    let body: string;
    try {
      body = await readBody(req);
    } catch (e) {
      // A stalled body was answered (408) by the watchdog.
      if (res.headersSent) return;
      const status = (e as { status?: number }).status ?? 400;
      sendJson(res, status, { error: (e as Error).message, code: 'invalid' });
      if (status === 413) discardBody(req);
      return;
    }
    let input: unknown = {};
    if (body.trim()) {
      try {
        input = JSON.parse(body);
      } catch (e) {
        return sendResult(res, callError('invalid', `body is not JSON: ${(e as Error).message}`));
      }
    }
    if (name === 'importDataset' && opts.uploadDir) return sendResult(res, await withUploads(opts.uploadDir, 'importDataset', input));
    if (name === 'previewImport' && opts.uploadDir) return sendResult(res, await withUploads(opts.uploadDir, 'previewImport', input));
    sendResult(res, await dispatch(engine, name, input));
  }

  /**
   * An import or preview of uploaded files, each named as the file the user chose (never the temp file); an import's
   * uploads are removed once it ends, failed or not, a preview's stay for the import that follows it.
   */
  async function withUploads(dir: string, method: 'importDataset' | 'previewImport', input: unknown): Promise<CallResult> {
    const uploaded = uploadsNamed(dir, input);
    let result: CallResult;
    try {
      const named = input && typeof input === 'object' && uploaded.length ? { ...input, display_names: Object.fromEntries(uploaded.map((p) => [p, uploadedAs(p)])) } : input;
      result = await dispatch(engine, method, named);
    } finally {
      if (method === 'importDataset') removeUploads(uploaded);
    }
    if (result.ok) return result;
    let message = result.error.error;
    for (const p of uploaded) message = message.replaceAll(p, `uploaded ${uploadedAs(p)}`);
    return { ...result, error: { ...result.error, error: message } };
  }

  async function serveMetrics(req: IncomingMessage, res: ServerResponse, metrics: NonNullable<ServerOptions['metrics']>): Promise<void> {
    if (req.method !== 'GET') {
      res.writeHead(405, { Allow: 'GET' }).end();
      return;
    }
    if (!authorized(req)) return sendResult(res, callError('unauthorized', 'missing or wrong token: give it as `Authorization: Bearer TOKEN` (Prometheus: authorization.credentials)'));
    const body = await metrics.text();
    res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }).end(body);
  }

  /** PUT /api/upload?name=FILE: the body streamed to the upload folder; answers {path, bytes} (413 over the limit). */
  async function handleUpload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!opts.uploadDir) return sendResult(res, callError('unavailable', 'this host takes no uploads'));
    try {
      sendJson(res, 200, await receiveUpload(req, opts.uploadDir, url.searchParams.get('name') ?? 'upload', opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES));
    } catch (e) {
      // A stalled upload was answered (408) by the watchdog; its partial file is gone.
      if (res.headersSent) return;
      if (e instanceof UploadTooLarge) {
        // The rest of the body is not read: close the connection after the answer.
        res.setHeader('Connection', 'close');
        return sendJson(res, 413, { error: e.message, code: 'invalid' });
      }
      sendResult(res, callError('internal', `upload failed: ${(e as Error).message}`));
    }
  }

  async function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    // An older link with ?token=…: the token moves to the fragment, which the page keeps in its session storage
    // (scoped to this origin, port included) and which browsers never send to any server.
    const q = url.searchParams.get('token');
    if (q !== null) {
      if (!sameSecret(q, token)) {
        res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Wrong token. Open the URL that `caplab serve` printed.\n');
        return;
      }
      url.searchParams.delete('token');
      res.writeHead(302, { Location: `${url.pathname}${url.search}#token=${encodeURIComponent(token)}`, 'Cache-Control': 'no-store' }).end();
      return;
    }
    if (!staticRoot) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('This host serves the API only.\n');
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (rel.includes('\0')) {
      res.writeHead(400).end();
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(staticRoot, rel));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const st = await stat(file);
      if (!st.isFile()) throw new Error('not a file');
      const data = await readFile(file);
      const ext = extname(file).toLowerCase();
      const headers: Record<string, string | number> = {
        'Content-Type': MIME[ext] ?? 'application/octet-stream',
        'Content-Length': data.length,
        'Cache-Control': ext === '.html' ? 'no-store' : 'no-cache',
      };
      if (ext === '.html') headers['Content-Security-Policy'] = CONTENT_SECURITY_POLICY;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : data);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
    }
  }

  const timeouts = { ...DEFAULT_HOST_TIMEOUTS, ...opts.timeouts };
  // Node checks the headers deadline on this interval (30 s by default): often enough for the deadline to hold.
  const server = createServer({ connectionsCheckingInterval: Math.max(100, Math.min(10_000, timeouts.headersMs / 2)) }, (req, res) => {
    baseHeaders(res);
    watchBodyProgress(req, res, timeouts.idleMs);
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    if (!hostOk(req)) {
      sendJson(res, 403, { error: 'Host header not allowed (DNS-rebinding defence): use 127.0.0.1 or localhost with this port', code: 'forbidden' });
      return;
    }
    if (!originOk(req)) {
      sendJson(res, 403, { error: 'cross-origin request refused', code: 'forbidden' });
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const p =
      url.pathname === '/api' || url.pathname.startsWith('/api/')
        ? handleApi(req, res, url)
        : url.pathname === '/metrics' && opts.metrics
          ? serveMetrics(req, res, opts.metrics)
          : serveStatic(req, res, url);
    p.catch((e) => {
      if (!res.headersSent) sendJson(res, 500, { error: (e as Error).message, code: 'internal' });
      else res.destroy();
    });
  });
  server.headersTimeout = timeouts.headersMs;
  // No deadline on a whole request: it cut off long uploads that kept making progress (watchBodyProgress times out
  // stalled bodies instead).
  server.requestTimeout = 0;

  // The page offers [WS_PROTOCOL, bearer]; the answer names WS_PROTOCOL, never echoing the token back.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, handleProtocols: (offered) => (offered.has(WS_PROTOCOL) ? WS_PROTOCOL : false) });
  const clients = new Set<WebSocket>();

  function refuseUpgrade(socket: Socket, status: number, text: string): void {
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!hostOk(req) || !originOk(req)) return refuseUpgrade(socket, 403, 'Forbidden');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    } catch {
      return refuseUpgrade(socket, 400, 'Bad Request');
    }
    if (url.pathname !== '/api/ws') return refuseUpgrade(socket, 404, 'Not Found');
    if (!authorized(req)) return refuseUpgrade(socket, 401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.add(ws);
      (ws as WebSocket & { alive?: boolean }).alive = true;
      ws.on('pong', () => ((ws as WebSocket & { alive?: boolean }).alive = true));
      ws.on('close', () => clients.delete(ws));
      ws.on('error', () => clients.delete(ws));
      // The socket is one-way (engine -> page); anything the page sends is ignored.
      ws.on('message', () => undefined);
    });
  });

  const heartbeat = setInterval(() => {
    for (const ws of clients) {
      const w = ws as WebSocket & { alive?: boolean };
      if (w.alive === false) {
        ws.terminate();
        clients.delete(ws);
        continue;
      }
      w.alive = false;
      try {
        ws.ping();
      } catch {
        /* closed */
      }
    }
  }, 30_000);
  heartbeat.unref();

  const unsubscribe = engine.subscribe((event, payload) => {
    if (clients.size === 0) return;
    let data: string;
    try {
      data = JSON.stringify({ event, payload });
    } catch {
      return;
    }
    for (const ws of clients) {
      if (ws.readyState !== ws.OPEN) continue;
      if (ws.bufferedAmount > HARD_BUFFER) {
        ws.terminate();
        clients.delete(ws);
        continue;
      }
      if (ws.bufferedAmount > SOFT_BUFFER && DROPPABLE.has(event)) {
        dropped++;
        continue;
      }
      ws.send(data);
    }
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const origin = `http://${shownHost}:${port}`;

  let closed = false;
  return {
    url: `${origin}/#token=${encodeURIComponent(token)}`,
    origin,
    host,
    port,
    token,
    stats: () => ({ clients: clients.size, dropped }),
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(heartbeat);
      clearInterval(uploadSweep);
      for (const ws of clients) ws.terminate();
      clients.clear();
      wss.close();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    },
  };
}
