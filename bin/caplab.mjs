#!/usr/bin/env node
// Runs the CLI from TypeScript source through tsx, so `npx caplab` works right after `npm install`, no build step.
// The bundled build (scripts/device-bundle.sh) sets CAPLAB_BUNDLED and never goes through here.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

register();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { main } = await import(join(root, 'src/main/cli/main.ts'));
process.exitCode = await main(process.argv.slice(2));
