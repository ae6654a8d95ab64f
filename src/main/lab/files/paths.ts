import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = NodeJS.ProcessEnv;

/** The user's CapLab data directory: CAPLAB_DATA_DIR, else the platform's per-user data folder. */
export function dataDir(env: Env = process.env): string {
  if (env.CAPLAB_DATA_DIR) return env.CAPLAB_DATA_DIR;
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'caplab');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'caplab');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'caplab');
}

/** Database file: --db flag, else CAPLAB_DB, else caplab.db in the data directory. */
export function dbPath(flag: string | undefined, env: Env = process.env): string {
  return flag ?? env.CAPLAB_DB ?? join(dataDir(env), 'caplab.db');
}

/** Where simulated GPUs keep their limits and activity, shared by every process of this user. */
export function simStateDir(env: Env = process.env): string {
  return env.CAPLAB_SIM_STATE_DIR ?? join(dataDir(env), 'sim');
}
