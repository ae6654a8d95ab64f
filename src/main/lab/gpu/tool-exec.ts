/** Small helpers shared by the command-line backends (nvidia-smi, amd-smi, rocm-smi) and the cap setter. */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Spawn error (ENOENT, EACCES, timeout), if any. */
  error: string | null;
}

/** Runs `argv` without a shell. Never throws: failures come back in the result. */
export function runTool(argv: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ExecResult> {
  const [file, ...args] = argv;
  if (!file) return Promise.resolve({ code: null, stdout: '', stderr: '', error: 'empty command' });
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 15_000, maxBuffer: 32 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr, error: null });
        const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean; signal?: string };
        if (typeof e.code === 'number') return resolve({ code: e.code, stdout, stderr, error: null });
        const why = e.killed ? `timed out after ${opts.timeoutMs ?? 15_000} ms` : e.code === 'ENOENT' ? 'not found' : e.message;
        resolve({ code: null, stdout, stderr, error: why });
      },
    );
  });
}

/** Absolute path of `name` on PATH (from `env`), or null. A name with a slash is checked as given. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = name.includes('/') || isAbsolute(name) ? [name] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, name));
  for (const c of candidates) {
    try {
      if (!statSync(c).isFile()) continue;
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

/** True when this process runs as root (POSIX); false on platforms without getuid. */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Watts as a command-line argument: "250" or "250.5" (two decimals at most). */
export function formatWatts(w: number): string {
  return Number.isInteger(w) ? String(w) : String(Math.round(w * 100) / 100);
}

/** Last non-empty lines of a tool's output, for error messages. */
export function tail(text: string, lines = 3): string {
  return text
    .replace(/\r/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-lines)
    .join(' | ');
}
