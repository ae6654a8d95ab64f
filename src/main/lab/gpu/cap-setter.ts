/**
 * Setting a power limit through the vendor tool, as root directly or as a normal user through sudo in a pty.
 *
 * The pty exists so a user can type a password: it is handed to `onPty` (the CLI bridges it to the terminal,
 * the app to the run's terminal panel). Without `onPty` nobody can answer a prompt, so sudo runs with `-n` and
 * fails at once ("a password is required") instead of hanging. Commands are argv arrays, never shell strings.
 * Before anything runs the watts are checked against the device's constraints; after the tool returns, the
 * enforced limit is read back and must match within `toleranceW` (default 1 W).
 */
import * as pty from 'node-pty';
import type { BackendName } from '../../../shared/device';
import { BackendError } from './backend';
import { findOnPath, formatWatts, isRoot, runTool, tail } from './tool-exec';

export interface CapConstraints {
  min_limit_w: number | null;
  max_limit_w: number | null;
}

export const SUDO_PROMPT = '[caplab] sudo password for %u: ';

export interface SetCapOptions {
  /** The backend setting it (named in errors). */
  backend: BackendName;
  /** The tool's argv that sets the limit (argv[0] is looked up on PATH), e.g. `nvidia-smi -i 0 -pl 250`. */
  argv: string[];
  index: number;
  watts: number;
  constraints: CapConstraints;
  /** Reads the enforced limit back (W) after the tool returned. */
  readBack: () => Promise<number | null>;
  /** 'auto' (default): run the tool directly when root, else through sudo. */
  privilege?: 'auto' | 'root' | 'sudo';
  /** Receives the sudo pty so a person can type the password. Without it, sudo runs non-interactively (-n). */
  onPty?: (p: pty.IPty) => void;
  /** Environment for the child (PATH decides which sudo/tool runs). */
  env?: NodeJS.ProcessEnv;
  /** Overall limit for the tool (default 120 s with a pty a person answers, else 20 s). */
  timeoutMs?: number;
  toleranceW?: number;
  /** Device label for messages, e.g. "GPU 0 (NVIDIA H200)". */
  label?: string;
}

export interface SetCapResult {
  requested_w: number;
  enforced_w: number;
  via: 'direct' | 'sudo';
  argv: string[];
  output: string;
}

/** Wraps argv in sudo with CapLab's prompt; `interactive` false adds -n (fail instead of prompting). */
export function sudoArgv(argv: string[], interactive: boolean): string[] {
  return ['sudo', ...(interactive ? [] : ['-n']), '-p', SUDO_PROMPT, '--', ...argv];
}

/**
 * `sudo -n -l -- ARGV`: asks sudo whether this user may run `argv` without a password. It runs nothing and changes
 * nothing (with the sudoers rule of docs/gpu-permissions.md it prints the command and exits 0).
 */
export function sudoListArgv(argv: string[]): string[] {
  return ['sudo', '-n', '-l', '--', ...argv];
}

/** What `sudo -n -l -- ARGV` answered: allowed without a password, allowed only with one, or not allowed. */
export function sudoListVerdict(code: number | null, output: string): 'allowed' | 'password' | 'refused' {
  if (code === 0) return 'allowed';
  return /a password is required/i.test(output) ? 'password' : 'refused';
}

/** Throws an out-of-range BackendError naming the allowed range. */
export function validateCap(watts: number, c: CapConstraints, backend: BackendName, label = 'device'): void {
  if (!Number.isFinite(watts) || watts <= 0) {
    throw new BackendError(`power limit for ${label} must be a positive number of watts, got ${watts}`, backend, 'out-of-range');
  }
  const lo = c.min_limit_w;
  const hi = c.max_limit_w;
  if ((lo !== null && watts < lo - 1e-9) || (hi !== null && watts > hi + 1e-9)) {
    const range = `${lo ?? '?'}-${hi ?? '?'} W`;
    throw new BackendError(`power limit ${formatWatts(watts)} W is outside the allowed range ${range} for ${label}`, backend, 'out-of-range');
  }
}

const PERMISSION_PATTERNS = [
  /a password is required/i,
  /incorrect password/i,
  /sorry, try again/i,
  /is not in the sudoers file/i,
  /not allowed to execute/i,
  /may not run sudo/i,
  /insufficient permissions/i,
  /permission denied/i,
  /requires root/i,
  /no permission/i,
  /operation not permitted/i,
];

function classify(output: string): 'permission' | 'failed' {
  return PERMISSION_PATTERNS.some((re) => re.test(output)) ? 'permission' : 'failed';
}

function runInPty(argv: string[], env: NodeJS.ProcessEnv, timeoutMs: number, onPty?: (p: pty.IPty) => void): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  const [name, ...args] = argv;
  const file = findOnPath(name!, env) ?? name!;
  return new Promise((resolve, reject) => {
    let child: pty.IPty;
    try {
      child = pty.spawn(file, args, { name: 'xterm-256color', cols: 100, rows: 24, env: env as Record<string, string> });
    } catch (e) {
      reject(e);
      return;
    }
    let output = '';
    let timedOut = false;
    child.onData((d) => {
      if (output.length < 256 * 1024) output += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        child.kill('SIGTERM');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolve({ code: timedOut ? null : exitCode, output, timedOut });
    });
    onPty?.(child);
  });
}

/** Sets the limit and verifies it. Throws BackendError (out-of-range | permission | unavailable | failed). */
export async function setCap(opts: SetCapOptions): Promise<SetCapResult> {
  const backend = opts.backend;
  const tool = opts.argv[0] ?? '';
  const label = opts.label ?? `GPU ${opts.index}`;
  validateCap(opts.watts, opts.constraints, backend, label);
  const env = opts.env ?? process.env;
  const privilege = opts.privilege ?? 'auto';
  const asRoot = privilege === 'root' || (privilege === 'auto' && isRoot());
  const toolArgv = opts.argv;
  if (!findOnPath(tool, env)) throw new BackendError(`${tool} is not on PATH; cannot set the power limit of ${label}`, backend, 'unavailable');

  let argv: string[];
  let code: number | null;
  let output: string;
  let timedOut: boolean;
  if (asRoot) {
    argv = toolArgv;
    const r = await runTool(argv, { env, timeoutMs: opts.timeoutMs ?? 20_000 });
    code = r.code;
    output = `${r.stdout}${r.stderr}${r.error ? `\n${r.error}` : ''}`;
    timedOut = /timed out/.test(r.error ?? '');
  } else {
    if (!findOnPath('sudo', env)) {
      throw new BackendError(`setting the power limit of ${label} needs root, and sudo is not on PATH (see docs/gpu-permissions.md)`, backend, 'permission');
    }
    argv = sudoArgv(toolArgv, !!opts.onPty);
    const r = await runInPty(argv, env, opts.timeoutMs ?? (opts.onPty ? 120_000 : 20_000), opts.onPty);
    code = r.code;
    output = r.output;
    timedOut = r.timedOut;
  }
  const cmd = argv.join(' ');
  if (timedOut) throw new BackendError(`\`${cmd}\` did not finish in time (no password typed?); the limit of ${label} may be unchanged`, backend, 'failed');
  if (code !== 0) {
    const kind = classify(output);
    const why = tail(output) || `exit code ${code}`;
    const hint = kind === 'permission' ? ' — sudo refused; type the password in the terminal or add the sudoers line from docs/gpu-permissions.md' : '';
    throw new BackendError(`setting ${formatWatts(opts.watts)} W on ${label} failed: ${why}${hint}`, backend, kind);
  }

  const tolerance = opts.toleranceW ?? 1;
  let enforced: number | null = null;
  for (let attempt = 0; attempt < 4; attempt++) {
    enforced = await opts.readBack();
    if (enforced !== null && !Number.isFinite(enforced)) enforced = null;
    if (enforced !== null && Math.abs(enforced - opts.watts) <= tolerance) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  if (enforced === null || Math.abs(enforced - opts.watts) > tolerance) {
    throw new BackendError(
      `power limit of ${label} reads back as ${enforced === null ? 'unknown' : formatWatts(enforced) + ' W'} after \`${cmd}\` asked for ${formatWatts(opts.watts)} W; the cap is not in effect`,
      backend,
      'failed',
    );
  }
  return { requested_w: opts.watts, enforced_w: enforced, via: asRoot ? 'direct' : 'sudo', argv, output };
}
