// The 0.1.0 fixture database copied to a temp dir, with a real engine and browser host over it, and a POST helper
// for the host's API (token, Host header, JSON).
import { copyFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer, type RunningServer } from '../../src/main/host/server';
import { runCli } from './cli';
import { tempDir } from './tmp';

export interface FixtureHost {
  db: string;
  env: NodeJS.ProcessEnv;
  engine: Engine;
  server: RunningServer;
  post<T = Record<string, unknown>>(method: string, body: unknown): Promise<{ status: number; json: T }>;
  close(): Promise<void>;
}

/**
 * `migrateWithCli`: the CLI opens (and migrates) the copy first, as a user upgrading would. `prepare`: writes more
 * into the (migrated) copy before the engine opens it.
 */
export async function openFixtureHost(opts: { migrateWithCli?: boolean; prepare?: (dbPath: string) => void } = {}): Promise<FixtureHost> {
  const tmp = tempDir();
  const db = join(tmp.dir, 'lab.db');
  const env = { CAPLAB_DB: db, CAPLAB_DATA_DIR: tmp.dir, CAPLAB_SIM_STATE_DIR: tmp.dir };
  copyFileSync(join(process.cwd(), 'test/fixtures/release-0.1.0/lab.db'), db);
  if (opts.migrateWithCli) {
    const r = await runCli(['runs', '--json'], env);
    if (r.code !== 0) throw new Error(`caplab runs failed: ${r.stderr}`);
  }
  opts.prepare?.(db);
  const engine = await Engine.open({ dbPath: db, env: { ...process.env, ...env } });
  const server = await startServer({ engine, port: 0, staticDir: null });
  const post = <T,>(method: string, body: unknown) =>
    new Promise<{ status: number; json: T }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: `/api/${method}`,
          method: 'POST',
          headers: { Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as T }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  return {
    db,
    env,
    engine,
    server,
    post,
    async close() {
      await server.close();
      await engine.close();
      tmp.cleanup();
    },
  };
}
