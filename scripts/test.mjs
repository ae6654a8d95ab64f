#!/usr/bin/env node
// `npm test`: lint, type-check, unit + integration tests (vitest), then end-to-end tests in Chromium (Playwright).
import { spawnSync } from 'node:child_process';

const steps = [
  ['lint', 'npx', ['eslint', '.']],
  ['typecheck', 'npm', ['run', '-s', 'typecheck']],
  ['unit + integration', 'npx', ['vitest', 'run']],
  ['build renderer', 'npx', ['electron-vite', 'build']],
  ['e2e (Chromium)', 'npx', ['playwright', 'test']],
];

const only = process.argv[2];
for (const [name, cmd, args] of steps) {
  if (only && !name.startsWith(only)) continue;
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } });
  console.log(`=== ${name}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}
