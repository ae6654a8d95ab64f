// Starts `caplab serve` on the simulated backend with a temp database and sim state dir, waits for its URL and
// hands it to the specs (process.env is inherited by the test workers). Teardown stops it (limits restored).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** The specs test the built renderer: rebuild it when any source under src/ is newer than the build. */
function buildIfStale(root: string): void {
  const built = join(root, 'out', 'renderer', 'index.html');
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(newest(join(root, 'src', 'renderer')), newest(join(root, 'src', 'shared')))) return;
  const r = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npx electron-vite build failed');
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  if (process.env.CAPLAB_E2E_ELECTRON_SKIP) console.log(`caplab e2e: ${process.env.CAPLAB_E2E_ELECTRON_SKIP}`);
  if (!process.env.CAPLAB_E2E_NO_BUILD) buildIfStale(root);
  const dir = mkdtempSync(join(tmpdir(), 'caplab-e2e-'));
  const env = {
    ...process.env,
    CAPLAB_DATA_DIR: join(dir, 'data'),
    CAPLAB_DB: join(dir, 'lab.db'),
    CAPLAB_SIM_STATE_DIR: join(dir, 'sim'),
    // Leases and the host journal of this run only (they are host-wide by design).
    CAPLAB_LEASE_DIR: join(dir, 'leases'),
    CAPLAB_LEASE_NS: `e2e-${process.pid}`,
  };
  const child: ChildProcess = spawn(process.execPath, [join(root, 'bin', 'caplab.mjs'), 'serve', '--backend', 'sim', '--port', '0'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (d) => (log += String(d)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`caplab serve did not print its URL within 120 s:\n${log}`)), 120_000);
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /serving at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`caplab serve exited with ${code}:\n${log}`));
    });
  });
  process.env.CAPLAB_E2E_URL = url;
  process.env.CAPLAB_E2E_DIR = dir;
  // The Electron project's app inherits these: the same isolated leases and host journal as the browser host.
  process.env.CAPLAB_LEASE_DIR = env.CAPLAB_LEASE_DIR;
  process.env.CAPLAB_LEASE_NS = env.CAPLAB_LEASE_NS;
  writeFileSync(join(dir, 'url'), url);

  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    if (!process.env.CAPLAB_E2E_KEEP) rmSync(dir, { recursive: true, force: true });
  };
}
