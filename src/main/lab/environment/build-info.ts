import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The CapLab checkout or install this process runs from: the nearest folder up with CapLab's package.json. */
function appRoot(starts: readonly string[] = [process.argv[1] ? dirname(resolve(process.argv[1])) : '', process.cwd()]): string | null {
  for (const start of starts.filter(Boolean)) {
    for (let dir = start; ; dir = dirname(dir)) {
      const pkg = join(dir, 'package.json');
      if (existsSync(pkg)) {
        try {
          if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'caplab') return dir;
        } catch {
          /* not ours */
        }
      }
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

let cached: string | null | undefined;

/** The git commit this CapLab runs from (12 hex digits, "+dirty" with local changes); null outside a git checkout. */
export function buildCommit(root = appRoot()): string | null {
  if (cached !== undefined) return cached;
  cached = null;
  if (!root) return cached;
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, timeout: 3000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, timeout: 3000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    cached = /^[0-9a-f]{7,40}$/.test(head) ? `${head}${dirty ? '+dirty' : ''}` : null;
  } catch {
    /* no git, or not a checkout */
  }
  return cached;
}
