// Browser host security over real HTTP on 127.0.0.1: token, Host (DNS rebinding), Origin, input validation, WS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServer, CONTENT_SECURITY_POLICY, type RunningServer } from '../../src/main/host/server';
import type { EngineHandle } from '../../src/main/host/engine-handle';
import type { EventName } from '../../src/shared/api';
import { LabError } from '../../src/shared/errors';

/** A tiny stand-in for the engine: only what these transport tests touch. */
function fakeEngine() {
  const subs = new Set<(n: EventName, p: unknown) => void>();
  const notImplemented = async () => {
    throw new Error('not used in this test');
  };
  const engine = {
    health: async () => ({ ok: true as const, version: 'test', backend: 'sim' }),
    listDevices: notImplemented,
    validatePlan: notImplemented,
    planToYaml: notImplemented,
    planFromYaml: notImplemented,
    startSweep: notImplemented,
    cancelSweep: async ({ sweep_id }: { sweep_id: number }) => ({ cancelled: sweep_id === 1 }),
    listSweeps: async () => [],
    getSweep: async ({ sweep_id }: { sweep_id: number }) => {
      throw new LabError('not_found', `no sweep ${sweep_id}`);
    },
    deleteSweep: notImplemented,
    getRunTraces: notImplemented,
    restoreCaps: notImplemented,
    listWorkloads: notImplemented,
    subscribe(cb: (n: EventName, p: unknown) => void) {
      subs.add(cb);
      return () => subs.delete(cb);
    },
    emit(n: EventName, p: unknown) {
      for (const s of subs) s(n, p);
    },
  };
  return engine as unknown as EngineHandle & { emit(n: EventName, p: unknown): void };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function http(server: RunningServer, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, method: opts.method ?? 'GET', headers: { Host: `127.0.0.1:${server.port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

describe('browser host security', () => {
  let server: RunningServer;
  let engine: ReturnType<typeof fakeEngine>;
  let dir: string;
  const auth = () => ({ Authorization: `Bearer ${server.token}` });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'caplab-host-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>CapLab</title>');
    engine = fakeEngine();
    server = await startServer({ engine, staticDir: dir });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('binds to loopback and prints a URL with the token in its fragment (never sent to a server)', () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/#token=`));
    expect(server.token.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses API calls without the token (401)', async () => {
    const r = await http(server, '/api/health');
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).code).toBe('unauthorized');
    const p = await http(server, '/api/listSweeps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(p.status).toBe(401);
  });

  it('refuses a wrong token (401)', async () => {
    const r = await http(server, '/api/health', { headers: { Authorization: 'Bearer ' + 'x'.repeat(43) } });
    expect(r.status).toBe(401);
    const c = await http(server, '/api/health', { headers: { Authorization: 'Bearer nope-nope-nope-nope' } });
    expect(c.status).toBe(401);
  });

  it('answers 200 with the token as a bearer header', async () => {
    const r = await http(server, '/api/health', { headers: auth() });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ ok: true, version: 'test', backend: 'sim' });
  });

  it('sets no cookie (browsers send 127.0.0.1 cookies to every port): an old ?token= link moves the token to the fragment, and cookies do not authorise', async () => {
    const r = await http(server, `/?token=${encodeURIComponent(server.token)}`);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe(`/#token=${encodeURIComponent(server.token)}`);
    expect(r.headers['set-cookie']).toBeUndefined();
    const page = await http(server, '/');
    expect(page.headers['set-cookie']).toBeUndefined();
    const cookie = await http(server, '/api/health', { headers: { Cookie: `caplab_token_${server.port}=${server.token}; caplab_token=${server.token}` } });
    expect(cookie.status).toBe(401);
    const bad = await http(server, '/?token=wrong');
    expect(bad.status).toBe(401);
  });

  it('refuses a foreign Host header (403, DNS rebinding)', async () => {
    for (const host of ['evil.example:' + server.port, `127.0.0.1:${server.port + 1}`, 'attacker.com']) {
      const r = await http(server, '/api/health', { headers: { ...auth(), Host: host } });
      expect(r.status, host).toBe(403);
    }
    const page = await http(server, '/', { headers: { Host: 'rebind.example' } });
    expect(page.status).toBe(403);
    const localhost = await http(server, '/api/health', { headers: { ...auth(), Host: `localhost:${server.port}` } });
    expect(localhost.status).toBe(200);
  });

  it('refuses a foreign Origin (403) and accepts its own', async () => {
    const r = await http(server, '/api/listSweeps', {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json', Origin: 'http://evil.example' },
      body: '{}',
    });
    expect(r.status).toBe(403);
    const other = await http(server, '/api/health', { headers: { ...auth(), Origin: `http://127.0.0.1:${server.port + 1}` } });
    expect(other.status).toBe(403);
    const own = await http(server, '/api/listSweeps', {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json', Origin: `http://127.0.0.1:${server.port}` },
      body: '{}',
    });
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body)).toEqual([]);
  });

  it('validates input with the contract: 400 naming the field', async () => {
    const r = await http(server, '/api/cancelSweep', { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: '{"sweep_id":"x"}' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toMatch(/sweep_id/);
    const extra = await http(server, '/api/listSweeps', { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: '{"bogus":1}' });
    expect(extra.status).toBe(400);
    expect(JSON.parse(extra.body).error).toMatch(/bogus/);
    const notJson = await http(server, '/api/listSweeps', { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
    const form = await http(server, '/api/listSweeps', { method: 'POST', headers: { ...auth(), 'Content-Type': 'text/plain' }, body: '{}' });
    expect(form.status).toBe(400);
    const unknown = await http(server, '/api/dropTables', { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: '{}' });
    expect(unknown.status).toBe(404);
    const ok = await http(server, '/api/cancelSweep', { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: '{"sweep_id":1}' });
    expect(JSON.parse(ok.body)).toEqual({ cancelled: true });
    const missing = await http(server, '/api/getSweep', { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: '{"sweep_id":9}' });
    expect(missing.status).toBe(404);
  });

  it('serves pages with the strict CSP and refuses path traversal', async () => {
    const r = await http(server, '/');
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    // No <base> to re-point every relative URL, no form posting anywhere (issue #32).
    expect(CONTENT_SECURITY_POLICY).toContain("base-uri 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("form-action 'none'");
    const t = await http(server, '/../../etc/passwd');
    expect([403, 404]).toContain(t.status);
    const enc = await http(server, '/%2e%2e/%2e%2e/etc/passwd');
    expect([403, 404]).toContain(enc.status);
  });

  it('the page carries the same CSP as a meta tag (all but frame-ancestors, which a meta tag cannot set), in the source and in a build', () => {
    const directives = (policy: string) => policy.split(';').map((d) => d.trim()).filter(Boolean);
    const header = directives(CONTENT_SECURITY_POLICY).filter((d) => !d.startsWith('frame-ancestors'));
    const pages = [join(process.cwd(), 'src/renderer/index.html'), join(process.cwd(), 'out/renderer/index.html')].filter((p) => existsSync(p));
    for (const page of pages) {
      const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(readFileSync(page, 'utf8'));
      expect(meta, page).not.toBeNull();
      expect(directives(meta![1]!), page).toEqual(header);
    }
  });

  it('WebSocket: refused without token, wrong Host or foreign Origin; pushes events with it', async () => {
    const url = `ws://127.0.0.1:${server.port}/api/ws`;
    const refused = (ws: WebSocket) =>
      new Promise<number>((resolve) => {
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', () => resolve(-1));
      });
    expect(await refused(new WebSocket(url))).toBe(401);
    expect(await refused(new WebSocket(url, { headers: { Authorization: `Bearer ${server.token}`, Host: 'evil.example' } }))).toBe(403);
    expect(await refused(new WebSocket(url, { headers: { Authorization: `Bearer ${server.token}` }, origin: 'http://evil.example' }))).toBe(403);

    expect(await refused(new WebSocket(url, ['caplab.v1', 'caplab.bearer.wrong-token-wrong-token']))).toBe(401);
    expect(await refused(new WebSocket(`${url}?token=${server.token}`))).toBe(401);

    // As the page connects: the token as a subprotocol; the host answers with the plain protocol, not the token.
    const ws = new WebSocket(url, ['caplab.v1', `caplab.bearer.${server.token}`], { origin: `http://127.0.0.1:${server.port}` });
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => resolve());
      ws.on('error', reject);
    });
    expect(ws.protocol).toBe('caplab.v1');
    const got = new Promise<unknown>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
    engine.emit('pty.data', { sweep_id: 1, run_id: 2, data: 'hello' });
    expect(await got).toEqual({ event: 'pty.data', payload: { sweep_id: 1, run_id: 2, data: 'hello' } });
    ws.close();
  });

  it('will not bind to a non-loopback address unless asked explicitly', async () => {
    await expect(startServer({ engine, staticDir: null, host: '0.0.0.0' })).rejects.toThrow(/--host/);
  });
});
