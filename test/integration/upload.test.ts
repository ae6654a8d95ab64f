// The browser host's bulk path: a log streamed to PUT /api/upload lands on disk byte for byte within the size
// limit (413 and nothing left over it), and imports through importDataset by path like a local file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer, type RunningServer } from '../../src/main/host/server';
import { uploadName } from '../../src/main/host/upload';
import { tempDir } from '../helpers/tmp';
import { runCli } from '../helpers/cli';

const tmp = tempDir();
const uploads = join(tmp.dir, 'uploads');
let engine: Engine;
let server: RunningServer;

function put(name: string, chunks: Buffer[], token = server.token): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: `/api/upload?name=${encodeURIComponent(name)}`, method: 'PUT', headers: { Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${token}`, 'Transfer-Encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    // A refused upload closes the connection while the client still writes: the answer still comes.
    let failure: Error | null = null;
    req.on('error', (e) => (failure = e));
    req.on('close', () => setTimeout(() => failure && reject(failure), 2000));
    (async () => {
      for (const c of chunks) {
        if (req.destroyed) return;
        req.write(c);
        await new Promise((r) => setTimeout(r, 1));
      }
      req.end();
    })().catch(reject);
  });
}

/** POST /api/NAME with a JSON body, as the page calls the contract. */
async function call(name: string, input: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`http://127.0.0.1:${server.port}/api/${name}`, { method: 'POST', headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  engine = await Engine.open({ dbPath: join(tmp.dir, 'lab.db'), env: { ...process.env, CAPLAB_DATA_DIR: tmp.dir } });
  server = await startServer({ engine, port: 0, staticDir: null, uploadDir: uploads, maxUploadBytes: 1_000_000 });
});
afterAll(async () => {
  await server.close();
  await engine.close();
  tmp.cleanup();
});

describe('PUT /api/upload', () => {
  it('streams a log to disk chunk by chunk and imports it by path', async () => {
    const csv = readFileSync(join(process.cwd(), 'test/fixtures/import/nvidia-smi-seed.csv'));
    const chunks = Array.from({ length: Math.ceil(csv.length / 7) }, (_, i) => csv.subarray(i * 7, i * 7 + 7));
    const r = await put('../../etc/nvidia smi.csv', chunks);
    expect(r.status).toBe(200);
    expect(r.json.bytes).toBe(csv.length);
    const path = r.json.path as string;
    expect(path.startsWith(uploads)).toBe(true);
    expect(path).toMatch(/-nvidia_smi\.csv$/);
    expect(readFileSync(path).equals(csv)).toBe(true);
    const imported = await engine.importDataset({ import_id: 'u1', paths: [path], format: 'auto' });
    expect(imported.dataset?.samples).toBeGreaterThan(0);
  });

  it('refuses an upload without the right token (401) before writing anything', async () => {
    const before = existsSync(uploads) ? readdirSync(uploads).length : 0;
    const r = await put('sneaky.csv', [Buffer.from('timestamp, index, power.draw [W]\n')], 'not-the-token');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'unauthorized' });
    expect(existsSync(uploads) ? readdirSync(uploads).length : 0).toBe(before);
  });

  it('refuses an upload over the limit with 413 and leaves no partial file', async () => {
    const before = readdirSync(uploads).length;
    const r = await put('big.csv', Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 0x41)));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: 'invalid', error: expect.stringMatching(/over 1000000 bytes/) });
    expect(readdirSync(uploads).length).toBe(before);
    expect(existsSync(uploads)).toBe(true);
  });

  it('caplab serve refuses a CAPLAB_MAX_UPLOAD_BYTES that is not a byte count (it would lift the limit) a CAPLAB_TOKEN a header cannot carry, and a bad or stray --interval, before opening the database', { timeout: 60_000 }, async () => {
    const dir = join(tmp.dir, 'serve-flags');
    const env = { CAPLAB_DATA_DIR: dir, CAPLAB_DB: join(dir, 'lab.db'), CAPLAB_SIM_STATE_DIR: join(dir, 'sim') };
    const bad = await runCli(['serve', '--api-only', '--backend', 'sim'], { ...env, CAPLAB_MAX_UPLOAD_BYTES: '16GB' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^caplab serve: CAPLAB_MAX_UPLOAD_BYTES must be a positive whole number of bytes; got "16GB"/);
    const interval = await runCli(['serve', '--api-only', '--backend', 'sim', '--metrics', '--interval', '10'], env);
    expect(interval.code).toBe(2);
    expect(interval.stderr).toMatch(/--interval is in milliseconds, 50 to 600000; got 10/);
    for (const token of ['short', 'has spaces, and a comma, in it']) {
      const r = await runCli(['serve', '--api-only', '--backend', 'sim'], { ...env, CAPLAB_TOKEN: token });
      expect(r.code, token).toBe(2);
      expect(r.stderr).toMatch(/^caplab serve: CAPLAB_TOKEN must be at least 16 characters of letters, digits/);
    }
    const alone = await runCli(['serve', '--api-only', '--backend', 'sim', '--interval', '500'], env);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--interval is the sampling interval of --metrics: give --metrics with it');
    expect(existsSync(env.CAPLAB_DB)).toBe(false);
  });

  it('removes an upload once its import through the host ended, imported or refused; a refusal names the file as uploaded', async () => {
    const csv = readFileSync(join(process.cwd(), 'test/fixtures/import/dcgmi-dmon.txt'));
    const up = await put('dmon.txt', [csv]);
    expect(up.status).toBe(200);
    const path = up.json.path as string;
    expect(existsSync(path)).toBe(true);
    const ok = await call('importDataset', { import_id: 'u2', paths: [path], format: 'auto' });
    expect(ok.status).toBe(200);
    const ds = (ok.json as { dataset: { samples: number; name: string; files: { path: string }[] } }).dataset;
    expect(ds.samples).toBeGreaterThan(0);
    expect(existsSync(path)).toBe(false);
    // The record names the file the user chose, not the removed temp file (`…/uploads/87a8…-dmon.txt`).
    expect(ds.files.map((f) => f.path)).toEqual(['dmon.txt']);
    expect(ds.name).toBe('dmon.txt');

    const bad = await put('semicolon.csv', [Buffer.from('timestamp; index; power.draw [W]\n2026/11/30 08:45:57.673; 0; 250.1\n')]);
    const badPath = bad.json.path as string;
    const refused = await call('importDataset', { import_id: 'u3', paths: [badPath], format: 'nvidia-smi' });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'invalid' });
    expect(refused.json.error).toMatch(/^cannot import uploaded semicolon\.csv:1: wrong delimiter/);
    expect(existsSync(badPath)).toBe(false);
    // Nothing else in the upload folder is touched by an import.
    const other = await put('other.csv', [csv]);
    await call('importDataset', { import_id: 'u4', paths: [join(tmp.dir, 'not-an-upload.csv')], format: 'auto' });
    expect(existsSync(other.json.path as string)).toBe(true);
  });

  it('a host starting removes uploads left over a day ago (never imported), keeping recent ones', async () => {
    const dir = join(tmp.dir, 'stale-uploads');
    mkdirSync(dir);
    const old = join(dir, '0123456789ab-old.csv');
    const recent = join(dir, 'abcdef012345-recent.csv');
    writeFileSync(old, 'x');
    writeFileSync(recent, 'y');
    const dayAndMore = Date.now() / 1000 - 25 * 3600;
    utimesSync(old, dayAndMore, dayAndMore);
    const host = await startServer({ engine, port: 0, staticDir: null, uploadDir: dir });
    try {
      expect(readdirSync(dir)).toEqual(['abcdef012345-recent.csv']);
    } finally {
      await host.close();
    }
  });

  it('keeps only a safe base name', () => {
    expect(uploadName('/etc/passwd')).toBe('passwd');
    expect(uploadName('..')).toBe('upload');
    expect(uploadName('a\\b\\c d$.log')).toBe('c_d_.log');
  });
});
