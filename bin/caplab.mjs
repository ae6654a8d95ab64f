#!/usr/bin/env node
// Runs the CLI from its compiled bundle (bin/cli-bundle.mjs: built on first use and whenever a source changed), so
// `npx caplab` works right after `npm install` and starts in about half the time tsx takes to compile the source.
// CAPLAB_CLI_SOURCE=1, or a checkout where no bundle can be built, runs the TypeScript source through tsx instead.
// The GPU machine's bundle (scripts/device-bundle.sh) sets CAPLAB_BUNDLED and never goes through here.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { cliBundle } from './cli-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = process.env.CAPLAB_CLI_SOURCE === '1' ? null : cliBundle(root);
let entry;
if (bundle) {
  if (process.env.CAPLAB_DEBUG === '1') process.setSourceMapsEnabled(true);
  entry = pathToFileURL(bundle).href;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = pathToFileURL(join(root, 'src/main/cli/main.ts')).href;
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
