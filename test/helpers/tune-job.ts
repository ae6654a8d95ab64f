// A simulated job for `caplab tune`: `caplab sim-workload` as a real child process (its true curve is the simulation's).
import { join } from 'node:path';
import { CLI } from './cli';

export function simJob(env: NodeJS.ProcessEnv, workload: string, extra: string[] = []): string[] {
  return [process.execPath, CLI, 'sim-workload', '--workload', workload, '--devices', '0', '--state-dir', env.CAPLAB_SIM_STATE_DIR!, ...extra];
}

export function tuneArgs(preset: string, speedup: number, extra: string[] = []): string[] {
  return ['tune', '--backend', 'sim', '--sim-devices', preset, '--sim-speedup', String(speedup), '--json', ...extra];
}

export const simDir = (env: NodeJS.ProcessEnv) => join(env.CAPLAB_SIM_STATE_DIR!);
