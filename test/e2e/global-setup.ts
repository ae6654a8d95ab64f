// Builds the renderer when a source is newer than the build; each worker then starts its own browser host
// (lab-host.ts, through fixtures.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './lab-host';

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

export default function globalSetup(): void {
  if (process.env.CAPLAB_E2E_ELECTRON_SKIP) console.log(`caplab e2e: ${process.env.CAPLAB_E2E_ELECTRON_SKIP}`);
  if (!process.env.CAPLAB_E2E_NO_BUILD) buildIfStale(repoRoot);
}
