// Times out a request whose body stops arriving, never one that keeps making progress: a multi-GB upload over a slow
// SSH tunnel may take hours, a client that goes silent mid-body holds a connection (and a partial upload) for nothing.
// Node's own `requestTimeout` is a deadline on the whole request, so the host turns it off and watches progress here.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The error a stalled body's reader sees (the client got a 408). */
export class BodyStalled extends Error {
  readonly status = 408;
  constructor(readonly idleMs: number) {
    super(`no byte of the request body arrived for ${idleMs / 1000} s: the client stopped sending`);
    this.name = 'BodyStalled';
  }
}

/** HTTP/1.1: a request has a body when it is chunked or declares a length over 0. */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Watches `req` until its body has arrived: after `idleMs` with no byte read from the connection it answers 408
 * (when nothing was answered yet), closes the connection and destroys the request with `BodyStalled`, so a reader
 * waiting on the body fails instead of waiting for ever. Bytes already received but not yet read by the host (its
 * own disk being slow) count as progress.
 */
export function watchBodyProgress(req: IncomingMessage, res: ServerResponse, idleMs: number): void {
  if (!hasBody(req)) return;
  const socket = req.socket;
  let seen = socket.bytesRead;
  let last = Date.now();
  const timer = setInterval(check, Math.max(10, Math.min(1000, idleMs / 5)));
  timer.unref();
  const stop = () => clearInterval(timer);
  req.once('end', stop);
  req.once('close', stop);

  function check(): void {
    if (req.complete || req.destroyed) return stop();
    const now = Date.now();
    if (socket.bytesRead !== seen || req.readableLength > 0) {
      seen = socket.bytesRead;
      last = now;
      return;
    }
    if (now - last < idleMs) return;
    stop();
    const err = new BodyStalled(idleMs);
    if (res.headersSent) {
      req.destroy(err);
      return;
    }
    const body = JSON.stringify({ error: err.message, code: 'invalid' });
    res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body, () => req.destroy(err));
  }
}
