#!/usr/bin/env node
// `npm start`: opens the desktop app; where it cannot (no display, or no Electron binary, as on machines that
// cannot download it), it says why and starts the browser host instead, printing the URL to open.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const extra = process.argv.slice(2);

function electronBinary() {
  try {
    const path = require('electron'); // the npm package resolves to the binary's path, or throws if it is missing
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

function hasDisplay() {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function newest(dir) {
  let t = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name);
    t = Math.max(t, name.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function buildIfStale() {
  const built = join(root, 'out', 'renderer', 'index.html');
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(root, 'src'))) return;
  console.log('caplab: building the app (electron-vite build)…');
  const r = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

let why = null;
let binary = electronBinary();
if (!hasDisplay()) why = 'no display ($DISPLAY and $WAYLAND_DISPLAY are unset)';
else if (!binary) {
  // The binary is fetched lazily: npm install does not download it (package.json allowScripts).
  console.log('caplab: fetching the Electron binary (first start)…');
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'electron', 'install.js')], { cwd: root, stdio: 'inherit', timeout: 180_000 });
  binary = r.status === 0 ? electronBinary() : null;
  if (!binary) why = 'the Electron binary is not installed and could not be downloaded here';
}

buildIfStale();
const child = why
  ? (console.log(`caplab: cannot open the desktop app: ${why}.\ncaplab: starting the browser host instead — open the URL below in a browser.`),
    spawn(process.execPath, [join(root, 'bin', 'caplab.mjs'), 'serve', '--demo', ...extra], { cwd: root, stdio: 'inherit' }))
  : spawn(binary, [root, ...extra], { cwd: root, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
