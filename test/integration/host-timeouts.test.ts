// The browser host times out clients that stop sending, never transfers that keep making progress (issue #32 item 1):
// a slow upload running many times the idle limit lands whole, a stalled one gets 408 and leaves no partial file, a
// slow answer is not cut, and a body declared over the limit is refused at once (413), not drained (item 7).
// Real HTTP on 127.0.0.1, a real engine on a real database; the idle limit is shortened so that this runs in seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { request } from 'node:http';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer, type RunningServer } from '../../src/main/host/server';
import type { EngineHandle } from '../../src/main/host/engine-handle';
import { tempDir } from '../helpers/tmp';

const IDLE_MS = 400;
const tmp = tempDir();
const uploads = join(tmp.dir, 'uploads');
let engine: Engine;
let server: RunningServer;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reply {
  status: number;
  json: Record<string, unknown>;
  ms: number;
}

/**
 * A request whose body is written by `send` (chunked unless a Content-Length is given); resolves with the answer
 * whenever it comes, even while the body is still being written.
 */
function send(srv: RunningServer, method: string, path: string, headers: Record<string, string>, body: (w: (c: Buffer) => boolean, end: () => void) => Promise<void>): Promise<Reply> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: srv.port, path, method, headers: { Host: `127.0.0.1:${srv.port}`, Authorization: `Bearer ${srv.token}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown>, ms: Date.now() - t0 }));
    });
    req.on('error', reject);
    body(
      (c) => !req.destroyed && req.write(c),
      () => req.end(),
    ).catch(reject);
  });
}

const uploadCount = () => (existsSync(uploads) ? readdirSync(uploads).length : 0);

beforeAll(async () => {
  engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env: { ...process.env, CAPLAB_DATA_DIR: tmp.dir } });
  server = await startServer({ engine, port: 0, staticDir: null, uploadDir: uploads, maxUploadBytes: 1_000_000, timeouts: { headersMs: 2_000, idleMs: IDLE_MS } });
});
afterAll(async () => {
  await server.close();
  await engine.close();
  tmp.cleanup();
});

describe('host timeouts: idle clients, not long transfers', () => {
  it('takes a slow upload that keeps making progress for over eight times the idle limit (and past the headers limit, which a whole-request deadline could not be under), byte for byte', async () => {
    const csv = readFileSync(join(process.cwd(), 'test/fixtures/import/nvidia-smi-seed.csv'));
    const pieces = 35;
    const size = Math.ceil(csv.length / pieces);
    const r = await send(server, 'PUT', '/api/upload?name=slow.csv', { 'Transfer-Encoding': 'chunked' }, async (write, end) => {
      for (let i = 0; i < pieces; i++) {
        write(csv.subarray(i * size, (i + 1) * size));
        await sleep(IDLE_MS / 4);
      }
      end();
    });
    expect(r.status).toBe(200);
    expect(r.ms).toBeGreaterThan(Math.max(8 * IDLE_MS, 2_000));
    expect(r.json.bytes).toBe(csv.length);
    expect(readFileSync(r.json.path as string).equals(csv)).toBe(true);
  });

  it('answers 408 to an upload that stops sending and leaves no partial file', async () => {
    const before = uploadCount();
    const r = await send(server, 'PUT', '/api/upload?name=stalled.csv', { 'Transfer-Encoding': 'chunked' }, async (write) => {
      write(Buffer.from('timestamp, index, power.draw [W]\n'));
      // ... and nothing more, never the end.
    });
    expect(r.status).toBe(408);
    expect(r.json).toMatchObject({ code: 'invalid', error: expect.stringMatching(/no byte of the request body arrived for 0\.4 s/) });
    expect(r.ms).toBeLessThan(IDLE_MS + 2_000);
    expect(uploadCount()).toBe(before);
  });

  it('answers 408 to an API call whose JSON body stops half way', async () => {
    const r = await send(server, 'POST', '/api/listSweeps', { 'Content-Type': 'application/json', 'Content-Length': '40' }, async (write) => {
      write(Buffer.from('{"limit"'));
    });
    expect(r.status).toBe(408);
    expect(r.ms).toBeLessThan(IDLE_MS + 2_000);
  });

  it('does not cut an answer that takes longer than the idle limit once the body is in', async () => {
    // The real engine, with its answer to one call held back past the idle limit (the transport is what is tested).
    const slow = Object.create(engine) as Engine;
    slow.listSweeps = async (input) => {
      await sleep(3 * IDLE_MS);
      return engine.listSweeps(input);
    };
    const host = await startServer({ engine: slow as EngineHandle, port: 0, staticDir: null, timeouts: { headersMs: 2_000, idleMs: IDLE_MS } });
    try {
      const r = await send(host, 'POST', '/api/listSweeps', { 'Content-Type': 'application/json' }, async (write, end) => {
        write(Buffer.from('{}'));
        end();
      });
      expect(r.status).toBe(200);
      expect(r.json).toEqual([]);
      expect(r.ms).toBeGreaterThanOrEqual(3 * IDLE_MS - 20);
    } finally {
      await host.close();
    }
  });

  it('refuses at once (413) an authorised request declaring Content-Length 99999999999, upload or API call, with the default timeouts', async () => {
    const host = await startServer({ engine, port: 0, staticDir: null, uploadDir: uploads });
    try {
      for (const [method, path, type] of [
        ['POST', '/api/listSweeps', 'application/json'],
        ['PUT', '/api/upload?name=huge.csv', 'text/csv'],
      ] as const) {
        const r = await send(host, method, path, { 'Content-Type': type, 'Content-Length': '99999999999' }, async (write) => {
          write(Buffer.from('{'));
        });
        expect(r.status, path).toBe(413);
        expect(r.json, path).toMatchObject({ code: 'invalid' });
        expect(r.ms, path).toBeLessThan(1_000);
      }
    } finally {
      await host.close();
    }
  });

  it('closes a connection whose headers never end (headers limit)', async () => {
    const t0 = Date.now();
    const closed = await new Promise<string>((resolve, reject) => {
      const s = connect(server.port, '127.0.0.1', () => s.write(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`));
      let text = '';
      s.on('data', (c) => (text += c));
      s.on('close', () => resolve(text));
      s.on('error', reject);
    });
    expect(closed).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - t0).toBeLessThan(2_000 + 2 * 1_000 + 1_500);
  });
});
