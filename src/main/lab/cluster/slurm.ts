// The Slurm commands CapLab drives (sbatch, squeue, sacct, scancel), as argv arrays, never shell strings.
// SLURM_CONF and PATH come from the environment, as for any Slurm client.
import { execFile } from 'node:child_process';
import { LabError } from '../../../shared/errors';

export class SlurmError extends LabError {
  constructor(message: string) {
    super('unavailable', message);
    this.name = 'SlurmError';
  }
}

export interface SlurmEnv {
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

function run(cmd: string, args: string[], o: SlurmEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env: o.env, cwd: o.cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new SlurmError(`${cmd} not found on PATH: run this on a Slurm login node (or install Slurm's client commands)`));
        return;
      }
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Submits a batch script; returns the job id (`sbatch --parsable` prints `id` or `id;cluster`). */
export async function sbatch(scriptPath: string, o: SlurmEnv): Promise<string> {
  const r = await run('sbatch', ['--parsable', scriptPath], o);
  const id = r.stdout.trim().split(';')[0] ?? '';
  if (r.code !== 0 || !/^\d+$/.test(id)) throw new SlurmError(`sbatch ${scriptPath} failed: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
  return id;
}

export interface SlurmTask {
  /** Array index; null for the array's pending remainder Slurm has not split yet. */
  task: number | null;
  state: string;
  node: string | null;
}

/** `1234_5` -> 5; `1234_[6-9%2]` (pending, not yet split) -> the indexes 6..9. */
function taskIndexes(id: string): number[] | null {
  const m = /_(\d+)$/.exec(id);
  if (m) return [Number(m[1])];
  const r = /_\[(.+?)(?:%\d+)?\]$/.exec(id);
  if (!r) return null;
  const out: number[] = [];
  for (const part of r[1]!.split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (let i = a!; i <= (b ?? a!); i++) out.push(i);
  }
  return out;
}

/** `squeue -o '%i|%T|%N'` / `sacct -P` lines -> tasks (exported for its tests). */
export function parseTable(text: string): SlurmTask[] {
  const out: SlurmTask[] = [];
  for (const line of text.split('\n')) {
    const [id, state, node] = line.trim().split('|');
    if (!id || !state) continue;
    // sacct lists job steps (1234_0.batch) too: the task's own line is enough.
    if (id.includes('.')) continue;
    for (const task of taskIndexes(id) ?? [null]) out.push({ task, state: state.split(' ')[0]!, node: node && node !== 'None assigned' && !node.startsWith('(') ? node : null });
  }
  return out;
}

/** The job's tasks Slurm still lists (pending and running ones; finished ones leave after MinJobAge). */
export async function squeue(jobId: string, o: SlurmEnv): Promise<SlurmTask[]> {
  const r = await run('squeue', ['-h', '-r', '-j', jobId, '-o', '%i|%T|%N'], o);
  if (r.code !== 0) {
    // squeue says "Invalid job id specified" once a job has left the queue.
    if (/invalid job id/i.test(r.stderr)) return [];
    throw new SlurmError(`squeue -j ${jobId} failed: ${r.stderr.trim() || `exit ${r.code}`}`);
  }
  return parseTable(r.stdout);
}

/** Accounting records of the job's tasks, or null where accounting is not enabled (slurmdbd absent). */
export async function sacct(jobId: string, o: SlurmEnv): Promise<SlurmTask[] | null> {
  const r = await run('sacct', ['-n', '-P', '-X', '-j', jobId, '--format=JobID,State,NodeList'], o);
  if (r.code !== 0) return null;
  return parseTable(r.stdout);
}

/** scancel JOB (every task) or JOB_TASK; with a signal, that signal instead of a cancel. */
export async function scancel(jobId: string, o: SlurmEnv, signal?: string): Promise<void> {
  const args = signal ? ['--signal', signal, jobId] : [jobId];
  const r = await run('scancel', args, o);
  if (r.code !== 0) throw new SlurmError(`scancel ${args.join(' ')} failed: ${r.stderr.trim() || `exit ${r.code}`}`);
}
