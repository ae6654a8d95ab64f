// The CLI's compiled form: one esbuild bundle of src/main/cli/main.ts plus the engine's worker threads, built on
// the first call and again whenever a file it was built from changed, so `npx caplab` works right after
// `npm install` and never runs stale code. Compiling the TypeScript through tsx at every call cost ~0.5 s of
// start-up (bench/startup.ts); the check that the bundle is current stats the bundle's inputs (a few ms).
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bump when the build below changes, so bundles built by an older launcher are rebuilt. */
const BUILD_VERSION = 3;
/** Worker threads, named as src/main/lab/process/lab-worker.ts looks for them beside the bundle (electron.vite.config.ts). */
const WORKERS = {
  'facility-worker': 'src/main/lab/facility/worker.ts',
  'csv-worker': 'src/main/lab/exporters/csv-worker.ts',
  'parquet-export-worker': 'src/main/lab/exporters/parquet-export-worker.ts',
  'import-worker': 'src/main/lab/datasets/parse-worker.ts',
  'parquet-worker': 'src/main/lab/datasets/parquet-worker.ts',
};
/** Packages the bundle loads from node_modules at run time instead of holding them. */
const NODE_MODULES_EXTERNAL = ['better-sqlite3', 'node-pty', 'koffi', 'electron', 'playwright-core', 'esbuild', 'tsx'];
/** A superseded build stays this long: a process started from it may still start its worker threads. */
const KEEP_OLD_MS = 24 * 3600_000;

/** Where bundles live: out/cli in the checkout, else (read-only install) a folder of this user's temp dir. */
function buildRoots(root) {
  const key = createHash('sha256').update(root).digest('hex').slice(0, 12);
  return [join(root, 'out', 'cli'), join(tmpdir(), `caplab-cli-${process.getuid?.() ?? 'u'}-${key}`)];
}

function readCurrent(home) {
  try {
    return JSON.parse(readFileSync(join(home, 'current.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** Whether the recorded build still matches every file it was built from. */
function isCurrent(home, rec) {
  if (!rec || rec.version !== BUILD_VERSION || typeof rec.dir !== 'string' || !Array.isArray(rec.inputs)) return false;
  if (!statSync(join(home, rec.dir, 'caplab.js'), { throwIfNoEntry: false })) return false;
  for (const [path, mtimeMs, size] of rec.inputs) {
    const s = statSync(path, { throwIfNoEntry: false });
    if (!s || s.mtimeMs !== mtimeMs || s.size !== size) return false;
  }
  return true;
}

function build(root, home) {
  const esbuild = createRequire(join(root, 'package.json'))('esbuild');
  mkdirSync(home, { recursive: true });
  // A fresh folder per build, published by renaming current.json: concurrent callers (a test runner's workers)
  // each build their own and never read a half-written bundle.
  const dir = `b-${process.pid}-${Date.now()}`;
  const out = join(home, dir);
  const result = esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: { caplab: 'src/main/cli/main.ts', ...WORKERS },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: out,
    // npm packages are bundled too, and each command is a chunk of its own (splitting), so a command loads only what
    // it imports, without the ESM loader resolving every package at every start (0.4 -> 0.13 s of CPU for
    // sim-workload, which a sweep starts once per run). Native modules, and what locates files of its own package
    // (playwright-core's browsers, esbuild and tsx for worker threads from source), load from node_modules.
    external: NODE_MODULES_EXTERNAL,
    splitting: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'silent',
    banner: { js: "import { createRequire as __caplabRequire } from 'node:module'; const require = __caplabRequire(import.meta.url);" },
  });
  // Outside the checkout (the temp-dir fallback) no package.json above says the .js files are ES modules; in out/cli
  // the checkout's does, and a package.json here would pass for the package root (serve looks for one upward).
  if (!home.startsWith(join(root, 'out'))) writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  // This builder is an input too: a bundle it built differently is not current. The packages it holds count as
  // one input, npm's record of what node_modules holds (rewritten by every install), not file by file.
  const own = Object.keys(result.metafile.inputs).filter((p) => !p.includes(':') && !p.split('/').includes('node_modules'));
  const inputs = [...own, 'bin/cli-bundle.mjs', 'node_modules/.package-lock.json'].flatMap((p) => {
    const s = statSync(join(root, p), { throwIfNoEntry: false });
    return s ? [[join(root, p), s.mtimeMs, s.size]] : [];
  });
  const tmp = join(home, `current.json.${process.pid}`);
  writeFileSync(tmp, JSON.stringify({ version: BUILD_VERSION, dir, built_at: new Date().toISOString(), inputs }));
  renameSync(tmp, join(home, 'current.json'));
  for (const name of readdirSync(home)) {
    if (!name.startsWith('b-') || name === dir) continue;
    const s = statSync(join(home, name), { throwIfNoEntry: false });
    if (s && Date.now() - s.mtimeMs > KEEP_OLD_MS) rmSync(join(home, name), { recursive: true, force: true });
  }
  return join(out, 'caplab.js');
}

/**
 * The path of a current bundle of this checkout's CLI, built if needed; null where none can be built (no esbuild,
 * no writable folder): the caller then runs the source through tsx.
 */
export function cliBundle(root) {
  let lastError = null;
  for (const home of buildRoots(root)) {
    const rec = readCurrent(home);
    if (isCurrent(home, rec)) return join(home, rec.dir, 'caplab.js');
    try {
      return build(root, home);
    } catch (e) {
      lastError = e;
    }
  }
  if (process.env.CAPLAB_DEBUG === '1') process.stderr.write(`caplab: could not build the CLI bundle, running from source: ${lastError?.stack ?? lastError}\n`);
  return null;
}
