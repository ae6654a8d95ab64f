// The 0.1.0 fixture database copied to a temp dir, with a real engine and browser host over it, and a POST helper
// for the host's API (token, Host header, JSON).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../src/main/lab/engine';
import { startServer, type RunningServer } from '../../src/main/host/server';
import { runCli } from './cli';
import { hostPoster, type HostPost } from './host-post';
import { tempDir } from './tmp';

export interface FixtureHost {
  db: string;
  env: NodeJS.ProcessEnv;
  engine: Engine;
  server: RunningServer;
  post: HostPost;
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
  const post = hostPoster(server);
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
