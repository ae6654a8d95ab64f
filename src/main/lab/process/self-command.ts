import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The argv that runs this CapLab's CLI again (for child processes such as the simulated workload).
 * CAPLAB_SELF_ARGV (a JSON array) wins; else the running CLI script; else bin/caplab.mjs of this checkout.
 */
export function selfCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.CAPLAB_SELF_ARGV) {
    const argv = JSON.parse(env.CAPLAB_SELF_ARGV) as unknown;
    if (Array.isArray(argv) && argv.every((a) => typeof a === 'string') && argv.length > 0) return argv;
    throw new Error('CAPLAB_SELF_ARGV must be a JSON array of strings');
  }
  const script = process.argv[1];
  // The script's real path: `npx caplab` starts it through a link in npx's cache (~/.npm/_npx/<hash>/…), which a
  // compute node or a cache clean does not have.
  if (script && /caplab(\.m?js|\.cjs)?$/.test(script)) return [process.execPath, existsSync(script) ? realpathSync(script) : script];
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const bin = join(dir, 'bin', 'caplab.mjs');
    if (existsSync(bin)) return [process.execPath, bin];
    dir = resolve(dir, '..');
  }
  throw new Error('cannot find the caplab CLI to start child processes; set CAPLAB_SELF_ARGV');
}
