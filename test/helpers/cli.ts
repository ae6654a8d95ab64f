import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// CAPLAB_CLI_ENTRY: another entry of the same CLI (the GPU machine's bundle, .device/caplab.mjs, where there is no tsx).
export const CLI = process.env.CAPLAB_CLI_ENTRY ?? join(process.cwd(), 'bin', 'caplab.mjs');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a child process. */
export function startCli(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return startCli(args, env).done;
}
