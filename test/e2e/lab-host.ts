// One `caplab serve` on the simulated backend with its own temp database, sim state, leases and host journal: each
// Playwright worker starts one (fixtures.ts), so spec files run side by side without seeing each other's sweeps.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LabHost {
  url: string;
  /** The host's folder: lab.db, data/, sim/, leases/ (specs read the database with the real CLI). */
  dir: string;
  /** Environment that points a process (the Electron app, the CLI) at this host's isolated state. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function startLabHost(tag: string): Promise<LabHost> {
  const dir = mkdtempSync(join(tmpdir(), 'caplab-e2e-'));
  const env = {
    CAPLAB_DATA_DIR: join(dir, 'data'),
    CAPLAB_DB: join(dir, 'lab.db'),
    CAPLAB_SIM_STATE_DIR: join(dir, 'sim'),
    // Leases and the host journal of this host only (they are host-wide by design).
    CAPLAB_LEASE_DIR: join(dir, 'leases'),
    CAPLAB_LEASE_NS: `e2e-${process.pid}-${tag}`,
  };
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot, 'bin', 'caplab.mjs'), 'serve', '--backend', 'sim', '--port', '0'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
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
  return {
    url,
    dir,
    env,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        // SIGTERM: the host restores the limits it changed before it exits.
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (!process.env.CAPLAB_E2E_KEEP) rmSync(dir, { recursive: true, force: true });
    },
  };
}
