// Starts one of the engine's worker threads. Built (app, bundled CLI): the entry electron-vite wrote next to the
// bundle. From TypeScript source (the CLI through tsx, tests): the entry bundled once per process with esbuild
// (which tsx brings) and run as code, because loading tsx inside every worker cost ~0.7 CPU s per thread, on the
// critical path of an import's parse thread and of every replica pool.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const bundles = new Map<string, string>();

function sourceBundle(entry: URL, from: string): string {
  const path = fileURLToPath(entry);
  let code = bundles.get(path);
  if (code === undefined) {
    const esbuild = createRequire(from)('esbuild') as typeof import('esbuild');
    const out = esbuild.buildSync({ entryPoints: [path], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent', external: ['better-sqlite3', 'electron'] });
    code = out.outputFiles[0]!.text;
    bundles.set(path, code);
  }
  return code;
}

/**
 * `from` is the caller's import.meta.url; `source` the worker's .ts file and `built` its built file name, both
 * relative to the caller.
 */
export function startLabWorker(from: string, source: string, built: string, options: WorkerOptions = {}): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(built, from), options);
  return new Worker(sourceBundle(new URL(source, from), from), { ...options, eval: true });
}

/** Whether a worker can start here: from source always; built only where its file was built. */
export function labWorkerExists(from: string, built: string): boolean {
  return from.endsWith('.ts') || existsSync(fileURLToPath(new URL(built, from)));
}
