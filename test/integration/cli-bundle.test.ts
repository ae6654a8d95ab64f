// The CLI runs from a compiled bundle (bin/cli-bundle.mjs) that is rebuilt whenever a file it was built from
// changes: done on a copy of the source tree, whose version string is edited between calls.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { copySourceTree } from '../helpers/source-copy';

const tmp = tempDir('caplab-bundle-');
/** The worker threads' entries beside the CLI's (bin/cli-bundle.mjs WORKERS). */
const WORKER_FILES = 5;
afterAll(() => tmp.cleanup());
const versionFile = () => join(tmp.dir, 'src/main/lab/environment/version.ts');
const current = () => JSON.parse(readFileSync(join(tmp.dir, 'out/cli/current.json'), 'utf8')) as { dir: string; inputs: [string, number, number][] };
const env = (extra: NodeJS.ProcessEnv = {}) => ({ ...process.env, CAPLAB_DATA_DIR: join(tmp.dir, 'data'), CAPLAB_CLI_SOURCE: '', ...extra });

function version(extra: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(process.execPath, [join(tmp.dir, 'bin', 'caplab.mjs'), '--version'], { env: env(extra), encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

function setVersion(v: string): void {
  writeFileSync(versionFile(), `export const VERSION = '${v}';\n`);
}

beforeAll(() => {
  copySourceTree(tmp.dir);
});

describe('the CLI bundle', () => {
  it('is built on the first call, reused while its sources are unchanged, and rebuilt when one changes', () => {
    setVersion('9.0.0-a');
    expect(version()).toBe('9.0.0-a');
    const first = current();
    expect(existsSync(join(tmp.dir, 'out/cli', first.dir, 'caplab.js'))).toBe(true);
    // Its inputs: the source files it was built from, and for the packages it holds npm's record of node_modules
    // (one file, not each package file: the check runs at every start).
    expect(first.inputs.some(([p]) => p.endsWith(join('src', 'main', 'lab', 'environment', 'version.ts')))).toBe(true);
    expect(first.inputs.filter(([p]) => p.includes('node_modules')).map(([p]) => basename(p))).toEqual(['.package-lock.json']);
    // Each command is a chunk of its own, so the entry file loads no package a command needs (the database's
    // native module among them) before the command is known.
    const dir = join(tmp.dir, 'out/cli', first.dir);
    expect(readdirSync(dir).filter((f) => f.endsWith('.js')).length).toBeGreaterThan(WORKER_FILES + 1);
    expect(readFileSync(join(dir, 'caplab.js'), 'utf8')).not.toMatch(/from\s*["']better-sqlite3["']/);

    expect(version()).toBe('9.0.0-a');
    expect(current().dir).toBe(first.dir);

    setVersion('9.0.0-b');
    expect(version()).toBe('9.0.0-b');
    expect(current().dir).not.toBe(first.dir);
  });

  it('gives every one of several concurrent first calls the current code', async () => {
    setVersion('9.0.0-c');
    const outs = await Promise.all(
      Array.from({ length: 4 }, () => new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [join(tmp.dir, 'bin', 'caplab.mjs'), '--version'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${err}`))));
      })),
    );
    expect(outs).toEqual(['9.0.0-c', '9.0.0-c', '9.0.0-c', '9.0.0-c']);
    expect(version()).toBe('9.0.0-c');
  });

  it('runs the TypeScript source through tsx with CAPLAB_CLI_SOURCE=1', () => {
    const before = current().dir;
    setVersion('9.0.0-d');
    expect(version({ CAPLAB_CLI_SOURCE: '1' })).toBe('9.0.0-d');
    expect(current().dir).toBe(before);
  });
});
