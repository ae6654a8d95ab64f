import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { arch, hostname, release, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from './version';
import type { ExportEnvironment } from '../../shared/export';

let commit: string | null | undefined;

/** This CapLab's git commit: CAPLAB_COMMIT, else `git rev-parse HEAD` of the checkout it runs from, else null. */
function caplabCommit(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CAPLAB_COMMIT) return env.CAPLAB_COMMIT;
  if (commit !== undefined) return commit;
  commit = null;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8 && !existsSync(join(dir, '.git')); i++) dir = resolve(dir, '..');
  if (existsSync(join(dir, '.git'))) {
    try {
      commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: dir, timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null;
    } catch {
      commit = null;
    }
  }
  return commit;
}

/**
 * The software side of a run record, taken when a sweep starts: host, OS, Node.js and CapLab version and commit.
 * GPU identities (UUID, driver, VBIOS) live with the devices; what CapLab cannot see is left out, never guessed.
 */
export function collectEnvironment(env: NodeJS.ProcessEnv = process.env): ExportEnvironment {
  return {
    host: hostname(),
    os: `${type()} ${release()} (${arch()})`,
    caplab_version: VERSION,
    caplab_commit: caplabCommit(env),
    node: process.versions.node,
  };
}
